/* lower_rows.h - a family's rows of the op table (ir/ops.def) as
 * LowerRule initializers.  A lower_<family>.c defines
 *	#define LW_FAMILY_<family> LW_THIS
 * and includes this file inside its table's braces: its own rows become
 * {op, rule}, the rows of every other family (and of `none`) nothing, so
 * each rule stays static in its family's file.  No include guard: each
 * family file includes it once, at its table. */
#define OP(op, family, rule, decompose, shape, fold, inplace, out, schema) \
	LW_PICK(LW_FAMILY_##family, op, rule)
#include "../ir/ops.def"
#undef OP
