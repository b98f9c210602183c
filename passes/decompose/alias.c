/* alias.c - inside the decompose plugin: ATen's aliases (torch.divide,
 * torch.special.expit, torch.arccosh, ...) as the op they name.
 *
 * PyTorch declares these as CompositeImplicitAutograd functions that call
 * their target with the same arguments, and the training IR keeps them.
 * One rewrite for all: a node of the target's overload with the node's
 * own arguments (a keyword the two schemas spell differently renamed),
 * so that every dtype, rank and broadcast the target's rule takes, the
 * alias takes too. */
#include <string.h>

#include "decompose.h"

static const struct Alias {
	const char *op, *target;
	const char *key, *as;  /* a keyword the target spells differently */
} aliases[] = {
	{"aten::arccosh.default", "aten::acosh.default", NULL, NULL},
	{"aten::arcsinh.default", "aten::asinh.default", NULL, NULL},
	{"aten::arctanh.default", "aten::atanh.default", NULL, NULL},
	{"aten::special_expit.default", "aten::sigmoid.default", NULL, NULL},
	{"aten::special_exp2.default", "aten::exp2.default", NULL, NULL},
	{"aten::special_expm1.default", "aten::expm1.default", NULL, NULL},
	{"aten::special_log1p.default", "aten::log1p.default", NULL, NULL},
	{"aten::special_erf.default", "aten::erf.default", NULL, NULL},
	{"aten::special_erfc.default", "aten::erfc.default", NULL, NULL},
	{"aten::special_round.default", "aten::round.decimals", NULL, NULL},
	{"aten::special_logit.default", "aten::logit.default", NULL, NULL},
	{"aten::special_xlogy.default", "aten::xlogy.Tensor", NULL, NULL},
	{"aten::special_softmax.default", "aten::softmax.int", NULL, NULL},
	{"aten::special_log_softmax.default", "aten::log_softmax.int", NULL,
	    NULL},
	{"aten::special_logsumexp.default", "aten::logsumexp.default", NULL,
	    NULL},
	{"aten::divide.Tensor", "aten::div.Tensor", NULL, NULL},
	{"aten::divide.Scalar", "aten::div.Scalar", NULL, NULL},
	{"aten::divide.Tensor_mode", "aten::div.Tensor_mode", NULL, NULL},
	{"aten::divide.Scalar_mode", "aten::div.Scalar_mode", NULL, NULL},
	{"aten::multiply.Tensor", "aten::mul.Tensor", NULL, NULL},
	{"aten::multiply.Scalar", "aten::mul.Scalar", NULL, NULL},
	{"aten::subtract.Tensor", "aten::sub.Tensor", NULL, NULL},
	{"aten::subtract.Scalar", "aten::sub.Scalar", NULL, NULL},
	{"aten::not_equal.Tensor", "aten::ne.Tensor", NULL, NULL},
	{"aten::not_equal.Scalar", "aten::ne.Scalar", NULL, NULL},
	{"aten::greater.Tensor", "aten::gt.Tensor", NULL, NULL},
	{"aten::greater.Scalar", "aten::gt.Scalar", NULL, NULL},
	{"aten::greater_equal.Tensor", "aten::ge.Tensor", NULL, NULL},
	{"aten::greater_equal.Scalar", "aten::ge.Scalar", NULL, NULL},
	{"aten::less.Tensor", "aten::lt.Tensor", NULL, NULL},
	{"aten::less.Scalar", "aten::lt.Scalar", NULL, NULL},
	{"aten::less_equal.Tensor", "aten::le.Tensor", NULL, NULL},
	{"aten::less_equal.Scalar", "aten::le.Scalar", NULL, NULL},
	{"aten::matrix_power.default", "aten::linalg_matrix_power.default",
	    NULL, NULL},
	{"aten::det.default", "aten::linalg_det.default", "self", "A"},
	{"prims::scalar_tensor.default", "aten::scalar_tensor.default", NULL,
	    NULL},
	{"aten::chain_matmul.default", "aten::linalg_multi_dot.default",
	    "matrices", "tensors"},
};

static const struct Alias *
alias_of(const char *op)
{
	for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++)
		if (!strcmp(aliases[i].op, op))
			return &aliases[i];
	return NULL;
}

int
dec_alias(Rw *r)
{
	const onnxc_host_api *h = r->h;
	const struct Alias *a = alias_of(h->str(r->ctx, r->ni.op));
	if (!a || r->ni.nargs > 16)
		return 0;
	onnxc_arg args[16];
	int n = 0;
	for (uint32_t i = 0; i < r->ni.nargs; i++) {
		if (h->node_arg(r->ctx, r->g, r->n, i, &args[n]) != ONNXC_OK)
			return 0;
		if (a->key && args[n].key &&
		    !strcmp(h->str(r->ctx, args[n].key), a->key))
			args[n] = dec_a_keyed(r, args[n], a->as);
		n++;
	}
	/* round.decimals wants its keyword; special_round's is optional */
	const char *target = a->target;
	if (!strcmp(target, "aten::round.decimals") && n == 1)
		target = "aten::round.default";
	Ty t[4];
	uint32_t nout = r->ni.nout;
	if (nout < 1 || nout > 4)
		return 0;
	for (uint32_t k = 0; k < nout; k++)
		if (dec_out_ty(r, k, &t[k]) != 0)
			return 0;
	onnxc_node c = dec_emit_n(r, target, &t[0], nout, n, args);
	onnxc_node_info ci;
	if (!c || h->node_get(r->ctx, r->g, c, &ci) != ONNXC_OK)
		return 0;
	for (uint32_t k = 1; k < nout; k++)
		if (h->value_set_type(r->ctx, r->g, ci.out + k, t[k].dtype,
		    t[k].rank, t[k].d) != ONNXC_OK)
			r->bad = 1;
	for (uint32_t k = 0; k < nout; k++)
		dec_bind(r, k, ci.out + k);
	return 1;
}
