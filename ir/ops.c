/* ops.c - the op table (ops.def) as data: every overload onnxc knows,
 * with its schema and variants and whether onnxc lowers it. */
#include <string.h>

#include "ir.h"

/* decompose is 0 or a function's name: its text says which */
const IrOp ir_ops[] = {
#define OP(op, family, rule, decompose, shape, fold, inplace, out, schema) \
	{op, #family, #rule, schema, inplace, out, sizeof #decompose > 2},
#include "ops.def"
#undef OP
};
const uint32_t ir_nops = sizeof ir_ops / sizeof *ir_ops;

const IrOp *
ir_op_find(const char *op)
{
	for (uint32_t k = 0; k < ir_nops; k++)
		if (!strcmp(ir_ops[k].op, op))
			return &ir_ops[k];
	return NULL;
}

const IrOp *
ir_op_of_inplace(const char *op)
{
	for (uint32_t k = 0; k < ir_nops; k++)
		if (ir_ops[k].inplace && !strcmp(ir_ops[k].inplace, op))
			return &ir_ops[k];
	return NULL;
}
