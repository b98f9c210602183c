/* random.c - lowerings of ATen's random ops (rand, randn, *_like,
 * bernoulli, uniform, randint, randperm).
 *
 * A program that draws random numbers cannot reproduce PyTorch's outputs,
 * so without --training each of these ops is an error that says the graph
 * is random.  With --training they lower to ONNX's random ops:
 *   rand/randn(size)           RandomUniform/RandomNormal (static size)
 *   rand_like/randn_like(x)    RandomUniformLike/RandomNormalLike
 *   uniform(x, from, to)       RandomUniformLike with low/high
 *   bernoulli(p)               Bernoulli
 *   bernoulli.p(x, p)          RandomUniformLike(x) < p, cast
 *   randint(low, high, size)   Floor(RandomUniform(low, high)), cast
 * randperm has no ONNX form and is always an error.
 */
#include <stdio.h>
#include <string.h>

#include <onnxc/plugin.h>

enum { MAXR = 16 };

typedef enum Kind {
	K_RAND, K_RANDN, K_RAND_LIKE, K_RANDN_LIKE, K_UNIFORM, K_BERNOULLI,
	K_BERNOULLI_P, K_RANDINT, K_RANDINT_LOW, K_RANDPERM
} Kind;

typedef struct Lw {
	onnxc_ctx *ctx;
	const onnxc_host_api *h;
	onnxc_graph fx;
	onnxc_node n;
	const char *op;
} Lw;

static onnxc_status
fail(Lw *l, const char *why)
{
	l->h->report(l->ctx, ONNXC_SEV_ERROR, l->fx, l->n, "%s %s", l->op, why);
	return ONNXC_ERROR;
}

/* A number argument pos/key, dflt when absent; 0 when not a number. */
static int
num(Lw *l, int pos, const char *key, double dflt, double *out)
{
	onnxc_arg a;
	if (l->h->node_find_arg(l->ctx, l->fx, l->n, pos, key, &a) !=
	    ONNXC_OK || a.kind == ONNXC_ARG_NONE) {
		*out = dflt;
		return 1;
	}
	if (a.kind == ONNXC_ARG_FLOAT)
		*out = a.f;
	else if (a.kind == ONNXC_ARG_INT || a.kind == ONNXC_ARG_BOOL)
		*out = (double)a.i;
	else
		return 0;
	return 1;
}

static onnxc_node
emit1(Lw *l, const char *op, uint32_t nin, const onnxc_value *in,
    uint32_t dtype, onnxc_value *out)
{
	onnxc_node m = l->h->lower_emit(l->ctx, "", op, nin, in, 1);
	onnxc_node_info mi;
	if (!m || l->h->node_get(l->ctx, l->h->lower_graph(l->ctx), m, &mi) !=
	    ONNXC_OK)
		return 0;
	*out = mi.out;
	l->h->lower_set_dtype(l->ctx, mi.out, dtype);
	return m;
}

/* The static shape attribute of FX output 0. */
static int
attr_shape(Lw *l, onnxc_node m, const onnxc_value_info *oi, onnxc_value o)
{
	onnxc_dim d[MAXR];
	onnxc_arg items[MAXR], list;
	if (oi->rank < 0 || oi->rank > MAXR || l->h->value_dims(l->ctx, l->fx,
	    o, d, MAXR) != ONNXC_OK)
		return 0;
	for (int32_t i = 0; i < oi->rank; i++) {
		if (d[i].e)
			return 0;
		items[i] = (onnxc_arg){.kind = ONNXC_ARG_INT, .i = d[i].n};
	}
	return l->h->lower_list(l->ctx, ONNXC_ARG_LIST, items,
	    (uint32_t)oi->rank, &list) == ONNXC_OK &&
	    l->h->lower_attr(l->ctx, m, "shape", &list) == ONNXC_OK;
}

static onnxc_status
lower(onnxc_ctx *ctx, const onnxc_host_api *h, void *user)
{
	Kind k = (Kind)(uintptr_t)user;
	Lw l = {.ctx = ctx, .h = h, .fx = h->graph(ctx), .n = h->lower_node(ctx)};
	onnxc_node_info ni;
	onnxc_value_info oi;
	if (h->node_get(ctx, l.fx, l.n, &ni) != ONNXC_OK ||
	    h->value_get(ctx, l.fx, ni.out, &oi) != ONNXC_OK)
		return ONNXC_INVALID;
	l.op = h->str(ctx, ni.op);
	if (k == K_RANDPERM)
		return fail(&l, "draws a random permutation, which ONNX has no "
		    "op for");
	if (!h->training(ctx))
		return fail(&l, "draws random numbers: the graph is random and "
		    "no converted model can reproduce PyTorch's outputs; pass "
		    "--training to convert it to ONNX's random ops anyway");
	uint32_t dt = oi.dtype;
	int isint = dt != ONNXC_DT_F32 && dt != ONNXC_DT_F64 &&
	    dt != ONNXC_DT_F16 && dt != ONNXC_DT_BF16;
	uint32_t fdt = isint ? ONNXC_DT_F32 : dt;
	onnxc_value x = 0, y = 0;
	onnxc_node m = 0;
	double lo, hi, p;
	switch (k) {
	case K_RAND:
	case K_RANDN:
	case K_RANDINT:
	case K_RANDINT_LOW:
		lo = 0;
		hi = 1;
		if ((k == K_RANDINT_LOW && (!num(&l, 0, "low", 0, &lo) ||
		    !num(&l, 1, "high", 0, &hi))) || (k == K_RANDINT &&
		    !num(&l, 0, "high", 0, &hi)))
			return fail(&l, "needs number bounds");
		m = emit1(&l, k == K_RANDN ? "RandomNormal" : "RandomUniform", 0,
		    NULL, fdt, &y);
		if (!m || !attr_shape(&l, m, &oi, ni.out) ||
		    !onnxc_lower_attr_i(ctx, h, m, "dtype", fdt))
			return fail(&l, "needs a static size");
		if (k != K_RANDN && (!onnxc_lower_attr_f(ctx, h, m, "low",
		    lo) || !onnxc_lower_attr_f(ctx, h, m, "high", hi)))
			return ONNXC_ERROR;
		if (k == K_RANDINT || k == K_RANDINT_LOW)
			emit1(&l, "Floor", 1, &y, fdt, &y);
		break;
	case K_RAND_LIKE:
	case K_RANDN_LIKE:
	case K_UNIFORM:
	case K_BERNOULLI_P:
		if (h->lower_input(ctx, 0, "self", &x) != ONNXC_OK)
			return ONNXC_ERROR;
		m = emit1(&l, k == K_RANDN_LIKE ? "RandomNormalLike" :
		    "RandomUniformLike", 1, &x, fdt, &y);
		if (!m || !onnxc_lower_attr_i(ctx, h, m, "dtype", fdt))
			return ONNXC_ERROR;
		if (k == K_UNIFORM && (!num(&l, 1, "from", 0, &lo) ||
		    !num(&l, 2, "to", 1, &hi) ||
		    !onnxc_lower_attr_f(ctx, h, m, "low", lo) ||
		    !onnxc_lower_attr_f(ctx, h, m, "high", hi)))
			return fail(&l, "needs number bounds");
		if (k == K_BERNOULLI_P) {
			if (!num(&l, 1, "p", 0.5, &p))
				return fail(&l, "needs a number p");
			onnxc_value pv, in[2];
			if (fdt == ONNXC_DT_F64) {
				pv = h->lower_const(ctx, fdt, 0, NULL, &p);
			} else {
				float pf = (float)p;
				pv = h->lower_const(ctx, ONNXC_DT_F32, 0, NULL, &pf);
				fdt = ONNXC_DT_F32;
			}
			in[0] = y;
			in[1] = pv;
			emit1(&l, "Less", 2, in, ONNXC_DT_BOOL, &y);
			isint = 1; /* cast the mask below */
		}
		break;
	case K_BERNOULLI:
		if (h->lower_input(ctx, 0, "self", &x) != ONNXC_OK)
			return ONNXC_ERROR;
		m = emit1(&l, "Bernoulli", 1, &x, dt, &y);
		if (!m)
			return ONNXC_ERROR;
		break;
	default:
		return ONNXC_INVALID;
	}
	if (!y)
		return ONNXC_ERROR;
	if (isint) {
		onnxc_node c = emit1(&l, "Cast", 1, &y, dt, &y);
		if (!c || !onnxc_lower_attr_i(ctx, h, c, "to", dt))
			return ONNXC_ERROR;
	}
	return h->lower_bind(ctx, 0, y);
}

#define RULE(op, kind) \
	{sizeof(onnxc_lowering_info), op, "", 15, 1000, lower, \
	    (void *)(uintptr_t)(kind)}

static const onnxc_lowering_info rules[] = {
	RULE("aten::rand.default", K_RAND),
	RULE("aten::randn.default", K_RANDN),
	RULE("aten::rand_like.default", K_RAND_LIKE),
	RULE("aten::randn_like.default", K_RANDN_LIKE),
	RULE("aten::uniform.default", K_UNIFORM),
	RULE("aten::bernoulli.default", K_BERNOULLI),
	RULE("aten::bernoulli.p", K_BERNOULLI_P),
	RULE("aten::bernoulli.float", K_BERNOULLI_P), /* from bernoulli_ */
	RULE("aten::randint.default", K_RANDINT),
	RULE("aten::randint.low", K_RANDINT_LOW),
	RULE("aten::randperm.default", K_RANDPERM),
};

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	(void)ctx;
	for (size_t i = 0; i < sizeof rules / sizeof *rules; i++) {
		onnxc_status s = host->register_lowering(reg, &rules[i]);
		if (s != ONNXC_OK)
			return s;
	}
	return ONNXC_OK;
}

ONNXC_PLUGIN_NAMED(random, "random", "1.0", init, NULL);
