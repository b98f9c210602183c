/* cse.c - pass "cse": merges nodes that compute the same thing.
 *
 * Requires: the current graph in program order, FX nodes as parsed or ONNX
 * nodes after "lower".
 * Provides: no two mergeable nodes with the same dialect, domain, op, output
 * count and arguments (values after merging, literals, lists item by item,
 * tensor attributes byte by byte, or by where their bytes are from
 * ONNXC_BIG_TENSOR bytes on).  The later node is erased and its users
 * take the earlier one's outputs.
 *
 * Mergeable means deterministic and without effects: ONNX ops of the
 * default domain except the random ones and those with subgraphs; FX ops
 * of aten::, prims::, _operator::, torch:: and math:: except random ops,
 * dropout, uninitialised tensors (empty*), in-place ops and asserts.  FX
 * nodes must also agree on their output annotations: two nonzero calls on
 * the same tensor give different unbacked sizes (u0, u1) and stay apart.
 * A node whose output is a graph output is never the one that goes: the
 * output keeps its name, and an ONNX graph output stays a value of its own.
 *
 * Subgraphs (bodies of higher-order ops, If/Loop/Scan bodies) are left
 * alone: not walked, their owners never merged; the values an ONNX
 * subgraph reads from outside are its owner's captures, plain uses here.
 *
 * One forward sweep over a hash table of the nodes kept: linear time.
 */
#include <stdlib.h>
#include <string.h>

#include <onnxc/plugin.h>
#include <onnxc/table.h>

enum { MAXDEPTH = 64, MAXRANK = 64, OPCACHE = 64, AHEAD = 4, ARGS = 8 };

/* Whether an op is mergeable, judged once by name (see mergeable). */
typedef struct OpVerdict {
	onnxc_str op, domain;
	uint32_t dialect;
	uint8_t used, ok;
} OpVerdict;

typedef struct Cse {
	onnxc_ctx *ctx;
	const onnxc_host_api *h;
	onnxc_graph g;
	uint32_t nvals;
	onnxc_value *repl;   /* per value: what it was merged into, or 0 */
	uint8_t *isout;      /* per value: a graph output */
	uint64_t *table;     /* open addressing: hash << 32 | node; 0 empty */
	uint32_t mask;
	uint32_t count;      /* nodes in the table */
	uint32_t merged;     /* nodes merged so far */
	int failed;          /* a host call failed: stop */
	OpVerdict opcache[OPCACHE];
} Cse;

/* ------------------------------------------------------------ reading */

/* Argument i of node n: from args when they were read with the node (and
 * are still what it holds), else asked of the host. */
static onnxc_status
arg_of(Cse *c, onnxc_node n, const onnxc_arg *args, uint32_t i,
    onnxc_arg *out)
{
	if (args && i < ARGS) {
		*out = args[i];
		return ONNXC_OK;
	}
	return c->h->node_arg(c->ctx, c->g, n, i, out);
}

/* ------------------------------------------------------------- hashing */

static uint64_t
mix(uint64_t h, uint64_t x)
{
	h ^= x + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
	h *= 0xff51afd7ed558ccdu;
	return h ^ (h >> 32);
}

static uint64_t
fbits(double f)
{
	uint64_t u;
	memcpy(&u, &f, sizeof u);
	return u;
}

static onnxc_value
canon(const Cse *c, onnxc_value v)
{
	return v < c->nvals && c->repl[v] ? c->repl[v] : v;
}

static uint64_t
hash_bytes(uint64_t h, const unsigned char *p, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3u;
	return mix(h, n);
}

static uint64_t
hash_arg(Cse *c, const onnxc_arg *a, int depth)
{
	uint64_t h = mix(a->kind, a->key);
	switch (a->kind) {
	case ONNXC_ARG_NONE:
		return h;
	case ONNXC_ARG_VALUE:
		return mix(h, canon(c, a->ref));
	case ONNXC_ARG_LIST:
	case ONNXC_ARG_TUPLE:
		h = mix(h, a->len);
		if (depth > MAXDEPTH) {
			c->failed = 1;
			return h;
		}
		for (uint32_t i = 0; i < a->len && !c->failed; i++) {
			onnxc_arg it;
			if (c->h->list_item(c->ctx, c->g, a, i, &it) !=
			    ONNXC_OK)
				c->failed = 1;
			else
				h = mix(h, hash_arg(c, &it, depth + 1));
		}
		return h;
	case ONNXC_ARG_TENSOR: {
		onnxc_tensor_info t;
		if (c->h->tensor_get(c->ctx, a->ref, &t) != ONNXC_OK) {
			c->failed = 1;
			return h;
		}
		h = mix(mix(h, t.dtype), (uint64_t)(int64_t)t.rank);
		for (int32_t i = 0; i < t.rank; i++)
			h = mix(h, (uint64_t)t.dims[i]);
		/* a big one by where its bytes are (ONNXC_BIG_TENSOR) */
		if (t.nbytes >= ONNXC_BIG_TENSOR)
			return mix(h, (uint64_t)(uintptr_t)t.data);
		return hash_bytes(h, t.data, t.data ? t.nbytes : 0);
	}
	default:
		/* the fields a kind does not use are zero */
		return mix(mix(mix(h, (uint64_t)a->i), fbits(a->f)), a->ref);
	}
}

/* ----------------------------------------------------------- equality */

static int
tensor_eq(Cse *c, onnxc_tensor x, onnxc_tensor y)
{
	onnxc_tensor_info a, b;
	if (x == y)
		return 1;
	if (c->h->tensor_get(c->ctx, x, &a) != ONNXC_OK ||
	    c->h->tensor_get(c->ctx, y, &b) != ONNXC_OK) {
		c->failed = 1;
		return 0;
	}
	if (a.dtype != b.dtype || a.rank != b.rank || a.nbytes != b.nbytes)
		return 0;
	for (int32_t i = 0; i < a.rank; i++)
		if (a.dims[i] != b.dims[i])
			return 0;
	if (a.data == b.data)
		return 1;
	return a.nbytes == 0 || (a.data && b.data &&
	    a.nbytes < ONNXC_BIG_TENSOR && memcmp(a.data, b.data,
	    a.nbytes) == 0);
}

static int
arg_eq(Cse *c, const onnxc_arg *a, const onnxc_arg *b, int depth)
{
	if (a->kind != b->kind || a->key != b->key)
		return 0;
	switch (a->kind) {
	case ONNXC_ARG_NONE:
		return 1;
	case ONNXC_ARG_VALUE:
		return canon(c, a->ref) == canon(c, b->ref);
	case ONNXC_ARG_LIST:
	case ONNXC_ARG_TUPLE:
		if (a->len != b->len || depth > MAXDEPTH)
			return 0;
		for (uint32_t i = 0; i < a->len; i++) {
			onnxc_arg x, y;
			if (c->h->list_item(c->ctx, c->g, a, i, &x) !=
			    ONNXC_OK || c->h->list_item(c->ctx, c->g, b, i,
			    &y) != ONNXC_OK) {
				c->failed = 1;
				return 0;
			}
			if (!arg_eq(c, &x, &y, depth + 1))
				return 0;
		}
		return 1;
	case ONNXC_ARG_TENSOR:
		return tensor_eq(c, a->ref, b->ref);
	default:
		return a->i == b->i && fbits(a->f) == fbits(b->f) &&
		    a->ref == b->ref;
	}
}

/* Same value type: dtype, rank and every dim (number or expression). */
static int
type_eq(Cse *c, onnxc_value x, onnxc_value y)
{
	onnxc_value_info a, b;
	if (c->h->value_get(c->ctx, c->g, x, &a) != ONNXC_OK ||
	    c->h->value_get(c->ctx, c->g, y, &b) != ONNXC_OK)
		return 0;
	if (a.kind != b.kind || a.dtype != b.dtype || a.rank != b.rank ||
	    a.sym != b.sym)
		return 0;
	if (a.rank <= 0)
		return 1;
	if (a.rank > MAXRANK)
		return 0;
	onnxc_dim da[MAXRANK], db[MAXRANK];
	if (c->h->value_dims(c->ctx, c->g, x, da, MAXRANK) != ONNXC_OK ||
	    c->h->value_dims(c->ctx, c->g, y, db, MAXRANK) != ONNXC_OK)
		return 0;
	for (int32_t i = 0; i < a.rank; i++)
		if (da[i].n != db[i].n || da[i].e != db[i].e)
			return 0;
	return 1;
}

static int
node_eq(Cse *c, onnxc_node m, const onnxc_node_info *mi, onnxc_node n,
    const onnxc_node_info *ni)
{
	if (mi->dialect != ni->dialect || mi->op != ni->op ||
	    mi->domain != ni->domain || mi->nargs != ni->nargs ||
	    mi->npos != ni->npos || mi->nout != ni->nout)
		return 0;
	for (uint32_t i = 0; i < ni->nargs; i++) {
		onnxc_arg a, b;
		if (c->h->node_arg(c->ctx, c->g, m, i, &a) != ONNXC_OK ||
		    c->h->node_arg(c->ctx, c->g, n, i, &b) != ONNXC_OK) {
			c->failed = 1;
			return 0;
		}
		if (!arg_eq(c, &a, &b, 0))
			return 0;
	}
	if (ni->dialect == ONNXC_FX)
		for (uint32_t k = 0; k < ni->nout; k++)
			if (!type_eq(c, mi->out + k, ni->out + k))
				return 0;
	return 1;
}

/* -------------------------------------------------------- eligibility */

static int
starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* FX ops whose result is not a function of their arguments, or that do
 * something besides returning it.  Matched on the name between "::" and
 * the overload: "aten::randn.default" -> "randn". */
static int
fx_impure(const char *name, size_t len)
{
	static const char *const words[] = {
		"bernoulli", "normal", "uniform", "multinomial", "poisson",
		"exponential", "geometric", "log_normal", "cauchy", "binomial",
		"rrelu", "rrelu_with_noise", "_standard_gamma",
		"_sample_dirichlet", "new_empty", "new_empty_strided",
	};
	char buf[128];
	if (len == 0 || len >= sizeof buf)
		return 1;
	memcpy(buf, name, len);
	buf[len] = 0;
	if (starts(buf, "rand") || starts(buf, "empty") ||
	    strstr(buf, "dropout") || starts(buf, "_assert") ||
	    starts(buf, "sym_constrain_range") || buf[len - 1] == '_')
		return 1;
	for (size_t i = 0; i < sizeof words / sizeof *words; i++)
		if (strcmp(buf, words[i]) == 0)
			return 1;
	return 0;
}

/* Whether an op may be merged at all, by its name alone. */
static int
op_mergeable(Cse *c, const onnxc_node_info *ni)
{
	const onnxc_host_api *h = c->h;
	if (ni->dialect == ONNXC_ONNX) {
		static const char *const random[] = {
			"RandomNormal", "RandomNormalLike", "RandomUniform",
			"RandomUniformLike", "Multinomial", "Bernoulli",
			"Dropout",
		};
		const char *dom = h->str(c->ctx, ni->domain);
		const char *op = h->str(c->ctx, ni->op);
		if ((dom && *dom && strcmp(dom, "ai.onnx") != 0) || !op)
			return 0;
		for (size_t i = 0; i < sizeof random / sizeof *random; i++)
			if (strcmp(op, random[i]) == 0)
				return 0;
		return 1;
	}
	if (ni->dialect != ONNXC_FX)
		return 0;
	const char *op = h->str(c->ctx, ni->op);
	if (!op || !(starts(op, "aten::") || starts(op, "prims::") ||
	    starts(op, "_operator::") || starts(op, "torch::") ||
	    starts(op, "math::")))
		return 0;
	const char *name = strstr(op, "::") + 2, *dot = strchr(name, '.');
	return !fx_impure(name, dot ? (size_t)(dot - name) : strlen(name));
}

static int
mergeable(Cse *c, onnxc_node n, const onnxc_node_info *ni,
    const onnxc_arg *args)
{
	if (ni->nout == 0)
		return 0;
	/* a graph has few ops and many nodes: the names are judged once
	 * per (dialect, op, domain), not once per node */
	uint32_t slot = (uint32_t)(mix(ni->op, ni->domain) % OPCACHE);
	OpVerdict *e = &c->opcache[slot];
	if (!e->used || e->op != ni->op || e->domain != ni->domain ||
	    e->dialect != ni->dialect)
		*e = (OpVerdict){ni->op, ni->domain, ni->dialect, 1,
		    (uint8_t)op_mergeable(c, ni)};
	if (!e->ok)
		return 0;
	if (ni->dialect == ONNXC_ONNX)
		for (uint32_t i = ni->npos; i < ni->nargs; i++) {
			onnxc_arg a;
			if (arg_of(c, n, args, i, &a) != ONNXC_OK ||
			    a.kind == ONNXC_ARG_GRAPH)
				return 0;
		}
	return 1;
}

/* ----------------------------------------------------------- the pass */

static uint64_t
hash_node(Cse *c, onnxc_node n, const onnxc_node_info *ni,
    const onnxc_arg *args)
{
	uint64_t h = mix(mix(mix(ni->dialect, ni->op), ni->domain),
	    mix(ni->nout, ni->npos));
	for (uint32_t i = 0; i < ni->nargs && !c->failed; i++) {
		onnxc_arg a;
		if (arg_of(c, n, args, i, &a) != ONNXC_OK)
			c->failed = 1;
		else
			h = mix(h, hash_arg(c, &a, 0));
	}
	return h;
}

static int
is_output(const Cse *c, const onnxc_node_info *ni)
{
	for (uint32_t k = 0; k < ni->nout; k++)
		if (ni->out + k < c->nvals && c->isout[ni->out + k])
			return 1;
	return 0;
}

/* The users of n's outputs all come later, and none is a graph output:
 * the sweep points them at the kept values as it reaches them (rewrite),
 * which costs one look at each argument, where replace_uses per merge
 * could cost a look at the whole graph. */
static onnxc_status
merge(Cse *c, const onnxc_node_info *ki, onnxc_node n,
    const onnxc_node_info *ni)
{
	for (uint32_t k = 0; k < ni->nout; k++)
		if (ni->out + k < c->nvals)
			c->repl[ni->out + k] = ki->out + k;
	c->merged++;
	return c->h->node_erase(c->ctx, c->g, n);
}

/* a with merged values replaced by the kept ones; *changed if it differs */
/* canon for onnxc_arg_map */
static onnxc_value
canon_of(const void *c, onnxc_value v)
{
	return canon(c, v);
}

static onnxc_status
rewrite(Cse *c, onnxc_node n, const onnxc_node_info *ni,
    const onnxc_arg *args)
{
	for (uint32_t i = 0; c->merged && i < ni->nargs; i++) {
		onnxc_arg a, b;
		int changed = 0;
		onnxc_status s = arg_of(c, n, args, i, &a);
		if (s == ONNXC_OK)
			s = onnxc_arg_map(c->ctx, c->h, c->g, &a, canon_of, c,
			    &b, &changed, 0);
		if (s == ONNXC_OK && changed)
			s = c->h->node_set_arg(c->ctx, c->g, n, i, &b);
		if (s != ONNXC_OK)
			return s;
	}
	return ONNXC_OK;
}

/* A zeroed table of n entries.  Its probes land anywhere: on 2 MiB pages
 * they miss the TLB far less (a VM walks two page tables per miss). */
static uint64_t *
table_new(uint32_t n)
{
	return onnxc_table_calloc(n, sizeof(uint64_t));
}

static void
table_put(uint64_t *t, uint32_t mask, uint64_t e)
{
	uint32_t i = (uint32_t)(e >> 32) & mask;
	while (t[i])
		i = (i + 1) & mask;
	t[i] = e;
}

/* Keep the table at most half full (it is made big enough: this is for
 * a graph that gained nodes since). */
static int
table_grow(Cse *c)
{
	if (2 * (uint64_t)(c->count + 1) <= (uint64_t)c->mask + 1)
		return 1;
	if (c->mask >= (1u << 31) - 1)
		return 0;
	uint32_t cap = 2 * (c->mask + 1);
	uint64_t *t = table_new(cap);
	if (!t)
		return 0;
	for (uint32_t i = 0; i <= c->mask; i++)
		if (c->table[i])
			table_put(t, cap - 1, c->table[i]);
	free(c->table);
	c->table = t;
	c->mask = cap - 1;
	return 1;
}

/* Look n up; merge it into its twin or enter it.  An entry keeps the top
 * half of its node's hash, so a probe that meets another node reads
 * nothing more. */
static onnxc_status
visit(Cse *c, onnxc_node n, const onnxc_node_info *ni, uint64_t h)
{
	if (c->failed)
		return ONNXC_ERROR;
	if (!table_grow(c))
		return ONNXC_NOMEM;
	uint64_t top = h >> 32;
	for (uint32_t i = (uint32_t)top & c->mask;; i = (i + 1) & c->mask) {
		uint64_t e = c->table[i];
		if (!e) {
			c->table[i] = top << 32 | n;
			c->count++;
			return ONNXC_OK;
		}
		if (e >> 32 != top)
			continue;
		onnxc_node m = (onnxc_node)e;
		onnxc_node_info mi;
		if (c->h->node_get(c->ctx, c->g, m, &mi) != ONNXC_OK)
			return ONNXC_ERROR;
		if (!node_eq(c, m, &mi, n, ni))
			continue;
		if (is_output(c, ni))
			return ONNXC_OK;
		return merge(c, &mi, n, ni);
	}
}

/* A node, read and hashed AHEAD nodes before the sweep reaches it so
 * that its table slot can be fetched meanwhile: the probes land anywhere
 * in a table of millions of entries, and waiting for each was most of the
 * pass.  What is read stays right until the sweep gets there: only the
 * node being swept changes (rewrite, merge).  A merge in between may
 * change what the node's arguments stand for: the hash is then worked
 * out again, from its arguments rewritten. */
typedef struct Ahead {
	onnxc_node n;        /* 0: not read (erased, or past the end) */
	int hashed;          /* mergeable, and hash holds its hash */
	uint32_t merged;     /* c->merged when hashed */
	uint64_t hash;
	onnxc_node_info ni;
	onnxc_arg args[ARGS];
} Ahead;

static void
look_ahead(Cse *c, Ahead *slot, onnxc_node n, uint32_t end)
{
	slot->n = 0;
	slot->hashed = 0;
	if (n >= end || onnxc_read_node(c->ctx, c->h, c->g, n, &slot->ni,
	    slot->args, ARGS) != ONNXC_OK)
		return;
	slot->n = n;
	if (!mergeable(c, n, &slot->ni, slot->args))
		return;
	uint64_t h = hash_node(c, n, &slot->ni, slot->args);
	if (c->failed) {
		c->failed = 0;   /* reported when the sweep gets there */
		return;
	}
	slot->hashed = 1;
	slot->merged = c->merged;
	slot->hash = h;
	__builtin_prefetch(&c->table[(uint32_t)(h >> 32) & c->mask]);
}

static onnxc_status
sweep(Cse *c, uint32_t end)
{
	const onnxc_host_api *h = c->h;
	uint32_t nout = h->output_count(c->ctx, c->g);
	for (uint32_t i = 0; i < nout; i++) {
		onnxc_value v = h->output_at(c->ctx, c->g, i);
		if (v && v < c->nvals)
			c->isout[v] = 1;
	}
	/* a ring: node k in slot k % R; n + AHEAD takes the slot of n - 1 */
	enum { R = AHEAD + 1 };
	Ahead ahead[R];
	memset(ahead, 0, sizeof ahead);
	for (onnxc_node n = 1; n <= AHEAD && n < end; n++)
		look_ahead(c, &ahead[n % R], n, end);
	for (onnxc_node n = 1; n < end; n++) {
		look_ahead(c, &ahead[(n + AHEAD) % R], n + AHEAD, end);
		const Ahead *got = &ahead[n % R];
		if (got->n != n)
			continue; /* erased */
		const onnxc_node_info *ni = &got->ni;
		/* arguments past ARGS were not read with the node */
		const onnxc_arg *args = got->args;
		if (rewrite(c, n, ni, args) != ONNXC_OK) {
			h->report(c->ctx, ONNXC_SEV_ERROR, c->g, n,
			    "cse: cannot point this node at merged values");
			return ONNXC_ERROR;
		}
		if (!got->hashed && !mergeable(c, n, ni, args))
			continue;
		uint64_t hash = got->hashed && got->merged == c->merged
		    ? got->hash : hash_node(c, n, ni, NULL);
		onnxc_status st = visit(c, n, ni, hash);
		if (st != ONNXC_OK) {
			h->report(c->ctx, ONNXC_SEV_ERROR, c->g, n, st ==
			    ONNXC_NOMEM ? "cse: out of memory" : "cse: the host "
			    "refused to read or merge this node");
			return ONNXC_ERROR;
		}
	}
	return ONNXC_OK;
}

static onnxc_status
run(onnxc_ctx *ctx, const onnxc_host_api *host, void *user)
{
	(void)user;
	Cse c = {.ctx = ctx, .h = host, .g = host->graph(ctx)};
	c.nvals = host->value_end(ctx, c.g);
	uint32_t end = host->node_end(ctx, c.g);
	/* the table at its final size from the start (at most every node
	 * enters it, and it stays at most half full): growing it would
	 * touch twice the memory, and its pages are only touched where
	 * entries land (onnxc_table_calloc) */
	c.mask = 1023;
	while ((uint64_t)c.mask + 1 < 2 * (uint64_t)end && c.mask < (1u << 30))
		c.mask = 2 * c.mask + 1;
	c.repl = onnxc_table_calloc((size_t)c.nvals + 1, sizeof *c.repl);
	c.isout = onnxc_table_calloc((size_t)c.nvals + 1, 1);
	c.table = table_new(c.mask + 1);
	onnxc_status s = ONNXC_ERROR;
	if (c.repl && c.isout && c.table)
		s = sweep(&c, end);
	else
		host->report(ctx, ONNXC_SEV_ERROR, c.g, 0,
		    "cse: out of memory");
	free(c.repl);
	free(c.isout);
	free(c.table);
	return s;
}

static const onnxc_pass_info pass = {
	.size = sizeof(onnxc_pass_info),
	.name = "cse",
	.summary = "merge nodes that compute the same value",
	.run = run,
};

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	(void)ctx;
	return host->register_pass(reg, &pass);
}

ONNXC_PLUGIN_NAMED(cse, "cse", "1.0", init, NULL);
