/* print.c - the IR as text, for --print-ir and golden tests.
 *
 *   graph main(%x: f32[s0, 4], %p_w: f32[8, 4] param "fc.weight") {
 *     %linear: f32[s0, 8] = aten::linear.default(%x, %p_w)
 *     return %linear
 *   }
 */
#include <inttypes.h>
#include <string.h>

#include "ir.h"

static void
print_type(Module *m, const Graph *g, ValId v, FILE *f)
{
	const Value *p = ir_val(g, v);
	switch (p->kind) {
	case VK_TENSOR:
		fprintf(f, "%s", ir_dtype_name((DType)p->dtype));
		if (p->rank < 0) {
			fputs("[?]", f);
			break;
		}
		fputc('[', f);
		for (int32_t i = 0; i < p->rank; i++)
			fprintf(f, "%s%s", i ? ", " : "",
			    ir_dim_text(m, g->dims[p->dims + (uint32_t)i]));
		fputc(']', f);
		break;
	case VK_SYMINT:
	case VK_SYMFLOAT:
	case VK_SYMBOOL:
		fprintf(f, "Sym(%s)", p->sym ? ir_dim_text(m, (Dim){0, p->sym})
		    : "?");
		break;
	case VK_CONST:
		fputs("const", f);
		break;
	case VK_OBJ:
		fputs("obj", f);
		break;
	default:
		fputs("?", f);
	}
}

static void
print_val(Module *m, const Graph *g, ValId v, FILE *f)
{
	const Value *p = ir_val(g, v);
	if (p->name)
		fprintf(f, "%%%s", ir_str(m, p->name));
	else
		fprintf(f, "%%%u", v);
}

static void
print_arg(Module *m, const Graph *g, const Arg *a, FILE *f)
{
	if (a->key)
		fprintf(f, "%s=", ir_str(m, a->key));
	switch (a->kind) {
	case A_NONE:
		fputs("None", f);
		break;
	case A_VAL:
		print_val(m, g, a->u.v, f);
		break;
	case A_INT:
		fprintf(f, "%" PRId64, a->u.i);
		break;
	case A_FLOAT:
		fprintf(f, "%.17g", a->u.f);
		break;
	case A_BOOL:
		fputs(a->u.i ? "True" : "False", f);
		break;
	case A_STR:
		fprintf(f, "'%s'", ir_str(m, a->u.s));
		break;
	case A_DTYPE:
		fprintf(f, "dtype(%s)", ir_dtype_name((DType)a->u.i));
		break;
	case A_LIST:
	case A_TUPLE: {
		const Arg *it = ir_items(g, a);
		fputc(a->kind == A_LIST ? '[' : '(', f);
		for (uint32_t i = 0; i < a->u.list.n; i++) {
			if (i)
				fputs(", ", f);
			print_arg(m, g, &it[i], f);
		}
		fputc(a->kind == A_LIST ? ']' : ')', f);
		break;
	}
	case A_DEVICE:
		fprintf(f, "device(%s)", ir_str(m, a->u.s));
		break;
	case A_LAYOUT:
		fprintf(f, "layout(%s)", ir_str(m, a->u.s));
		break;
	case A_MEMFMT:
		fprintf(f, "memory_format(%s)", ir_str(m, a->u.s));
		break;
	case A_GRAPH:
		fprintf(f, "@%s", ir_str(m, ir_graph(m, a->u.g)->name));
		break;
	case A_OP:
		fprintf(f, "op(%s)", ir_str(m, a->u.s));
		break;
	case A_TENSOR: {
		const Tensor *t = ir_tensorp(m, a->u.t);
		fprintf(f, "tensor(%s[", ir_dtype_name((DType)t->dtype));
		for (int32_t i = 0; i < t->rank; i++)
			fprintf(f, "%s%" PRId64, i ? ", " : "", t->dims[i]);
		fputs("])", f);
		break;
	}
	default:
		fputs("?", f);
	}
}

static const char *rolename[] = {
	[ROLE_NONE] = "", [ROLE_USER_INPUT] = "", [ROLE_PARAM] = " param",
	[ROLE_BUFFER] = " buffer", [ROLE_CONST] = " constant",
	[ROLE_CUSTOM_OBJ] = " object", [ROLE_TOKEN] = " token",
	[ROLE_OUTER] = " outer",
};

static const char *outname[] = {
	[OUT_USER] = "", [OUT_LOSS] = " loss",
	[OUT_BUFFER_MUTATION] = " buffer_mutation",
	[OUT_USER_INPUT_MUTATION] = " user_input_mutation",
	[OUT_GRAD_PARAM] = " grad_param", [OUT_GRAD_INPUT] = " grad_input",
	[OUT_TOKEN] = " token", [OUT_PARAM_MUTATION] = " param_mutation",
};

/* Subgraphs nested deeper are not printed (ir_verify refuses them). */
enum { MAXNEST = 64 };

static void
print_graph(Module *m, GraphId gid, FILE *f, int depth)
{
	const Graph *g = ir_graph(m, gid);
	fprintf(f, "graph %s(", ir_str(m, g->name));
	for (uint32_t i = 0; i < g->ninputs; i++) {
		ValId v = g->inputs[i];
		const Value *p = ir_val(g, v);
		fputs(i ? ",\n    " : "", f);
		print_val(m, g, v, f);
		fputs(": ", f);
		print_type(m, g, v, f);
		if (p->role < sizeof rolename / sizeof *rolename)
			fputs(rolename[p->role], f);
		if (p->target)
			fprintf(f, " \"%s\"", ir_str(m, p->target));
		if (p->init)
			fputs(" init", f);
	}
	fputs(") {\n", f);
	/* the values of the enclosing graph it reads: capture k of its owner */
	for (ValId v = 1; v < g->nvals; v++) {
		if (g->vals[v].role != ROLE_OUTER)
			continue;
		fputs("  ", f);
		print_val(m, g, v, f);
		fputs(": ", f);
		print_type(m, g, v, f);
		fprintf(f, " outer capture %u\n", g->vals[v].defidx);
	}
	for (NodeId n = 1; n < g->nnodes; n++) {
		const Node *p = ir_nodep(g, n);
		fputs("  ", f);
		for (uint32_t k = 0; k < p->nout; k++) {
			fputs(k ? ", " : "", f);
			print_val(m, g, p->out + k, f);
			fputs(": ", f);
			print_type(m, g, p->out + k, f);
		}
		fputs(p->nout ? " = " : "", f);
		if (p->dialect == D_ONNX && p->domain &&
		    *ir_str(m, p->domain))
			fprintf(f, "%s::", ir_str(m, p->domain));
		fprintf(f, "%s(", ir_str(m, p->op));
		for (uint32_t k = 0; k < p->nargs; k++) {
			fputs(k ? ", " : "", f);
			print_arg(m, g, &g->args[p->args + k], f);
		}
		fputc(')', f);
		if (p->loc.line)
			fprintf(f, "  # %u:%u", p->loc.line, p->loc.col);
		fputc('\n', f);
	}
	fputs("  return ", f);
	for (uint32_t i = 0; i < g->noutputs; i++) {
		fputs(i ? ", " : "", f);
		print_val(m, g, g->outputs[i], f);
		if (g->outkind[i] < sizeof outname / sizeof *outname)
			fputs(outname[g->outkind[i]], f);
		if (g->outtarget[i])
			fprintf(f, " \"%s\"", ir_str(m, g->outtarget[i]));
	}
	fputs("\n}\n", f);
	for (NodeId n = 1; n < g->nnodes && depth < MAXNEST; n++)
		for (uint32_t k = 0; k < g->nodes[n].nargs; k++) {
			const Arg *a = &g->args[g->nodes[n].args + k];
			if (a->kind == A_GRAPH && a->u.g && a->u.g < m->ngraphs) {
				fprintf(f, "// subgraph @%s of %%%s\n",
				    ir_str(m, ir_graph(m, a->u.g)->name),
				    g->nodes[n].nout ? ir_str(m,
				    g->vals[g->nodes[n].out].name) : "");
				print_graph(m, a->u.g, f, depth + 1);
			}
		}
}

void
ir_print(Module *m, GraphId gid, FILE *f)
{
	print_graph(m, gid, f, 0);
}
