/* test_robust.c - the bad-input contract.
 *
 * Every test dump (graph.txt of each case in tests/cases*) and a weights
 * file are cut short, have bytes flipped and lines shuffled, and go through
 * the frontend (fx_parse + ir_verify, st_open + st_bind); a sample of them
 * also goes through the onnxc binary.  Whatever comes out must keep the
 * contract: accepted with no error, or refused with at least one "error:"
 * line and no internal error; the binary exits 0 with a model protobuf-c
 * can read, or 1 with "error:" on stderr and no output file; never a
 * signal.
 * Then hand-made hostile inputs check that each limit is a diagnostic.
 * The mutations come from a fixed-seed PRNG, so a failure repeats. */
#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <onnx.pb-c.h>

#include "frontend/fx.h"
#include "frontend/safetensors.h"

/* ------------------------------------------------------------- helpers */

typedef struct Rng {
	uint64_t s;
} Rng;

static uint64_t
rnd(Rng *r)
{
	/* xorshift64* */
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 2685821657736338717ull;
}

static size_t
below(Rng *r, size_t n)
{
	return n ? (size_t)(rnd(r) % n) : 0;
}

typedef struct Buf {
	char *p;
	size_t n;
} Buf;

static Buf
readfile(const char *path)
{
	Buf b = {0};
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	struct stat st;
	assert_int_equal(fstat(fileno(f), &st), 0);
	b.n = (size_t)st.st_size;
	b.p = malloc(b.n ? b.n : 1);
	assert_int_equal(fread(b.p, 1, b.n, f), b.n);
	fclose(f);
	return b;
}

static void
writefile(const char *path, const char *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

/* An exact-size copy, so that ASan sees reads past the end. */
static Buf
copy(const char *p, size_t n)
{
	Buf b = {malloc(n ? n : 1), n};
	memcpy(b.p, p, n);
	return b;
}

/* Is there a diagnostic line (not an indented source line) of kind
 * "error: " whose message starts with prefix? */
static bool
diagline(const char *t, const char *prefix)
{
	size_t k = strlen(prefix);
	for (const char *l = t; *l;) {
		const char *nl = strchr(l, '\n');
		const char *e = strstr(l, ": error: ");
		if (*l != ' ' && e && (!nl || e < nl) &&
		    strncmp(e + 9, prefix, k) == 0)
			return true;
		l = nl ? nl + 1 : l + strlen(l);
	}
	return false;
}

static const char *src;  /* the source tree, from ONNXC_SRC */

static int
group_setup(void **state)
{
	(void)state;
	src = getenv("ONNXC_SRC");
	return 0;
}

/* The dumps: graph.txt of every case folder in tests/cases*, sorted. */
typedef struct List {
	char **v;
	uint32_t n, cap;
} List;

static int
cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static List
dumps(void)
{
	List l = {0};
	char path[4096];
	snprintf(path, sizeof path, "%s/tests", src);
	DIR *top = opendir(path);
	assert_non_null(top);
	struct dirent *e;
	while ((e = readdir(top))) {
		if (strncmp(e->d_name, "cases", 5) != 0)
			continue;
		char sub[4096];
		snprintf(sub, sizeof sub, "%.3800s/%.256s", path, e->d_name);
		DIR *d = opendir(sub);
		if (!d)
			continue;
		struct dirent *c;
		while ((c = readdir(d))) {
			char g[8192];
			struct stat st;
			snprintf(g, sizeof g, "%.4000s/%.256s/graph.txt", sub,
			    c->d_name);
			if (c->d_name[0] == '.' || stat(g, &st) != 0)
				continue;
			vgrow((void **)&l.v, &l.cap, l.n + 1, sizeof *l.v);
			l.v[l.n++] = strdup(g);
		}
		closedir(d);
	}
	closedir(top);
	qsort(l.v, l.n, sizeof *l.v, cmpstr);
	return l;
}

static void
list_free(List *l)
{
	for (uint32_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

/* ------------------------------------------------- the library contract */

typedef struct Out {
	int rc;
	char *diag;
	size_t len;
} Out;

/* Fail with the input's description and what went wrong. */
static void
broken(const char *what, const char *why, const Out *o)
{
	print_error("%s: %s\n%.*s\n", what, why,
	    (int)(o->len > 2000 ? 2000 : o->len), o->diag ? o->diag : "");
	fail();
}

static void
contract(const char *what, Module *m, Out *o)
{
	fflush(m->diagout);
	const char *t = o->diag ? o->diag : "";
	if (o->rc == 0 && m->nerrors)
		broken(what, "accepted with errors reported", o);
	if (o->rc != 0 && (!m->nerrors || !diagline(t, "")))
		broken(what, "refused without an error: line", o);
	if (diagline(t, "internal"))
		broken(what, "internal error", o);
}

/* fx_parse + ir_verify of every graph; the module is returned for more
 * stages (NULL when refused). */
static Module *
parse(const char *what, const char *text, size_t n, Out *o, GraphId *g)
{
	Module *m = ir_module_new();
	memset(o, 0, sizeof *o);
	m->diagout = open_memstream(&o->diag, &o->len);
	m->maxerrors = 50;
	m->file = "graph.txt";
	m->src = text;
	m->srclen = n;
	o->rc = fx_parse(m, g);
	for (GraphId i = *g; o->rc == 0 && i < m->ngraphs; i++)
		if (ir_verify(m, i) != 0)
			o->rc = -1;
	contract(what, m, o);
	return m;
}

static void
done(Module *m, Out *o)
{
	fclose(m->diagout);
	free(o->diag);
	ir_free(m);
}

static void
check_dump(const char *what, const Buf *b)
{
	Out o;
	GraphId g = 0;
	Module *m = parse(what, b->p, b->n, &o, &g);
	done(m, &o);
}

/* -------------------------------------------------------- the mutations */

static const char special[] = "\n\"'[](),:=#\\ 0-\x00\xff\x1b";

static Buf
truncated(const Buf *b, size_t at)
{
	return copy(b->p, at < b->n ? at : b->n);
}

static Buf
flipped(const Buf *b, Rng *r)
{
	Buf c = copy(b->p, b->n);
	size_t k = 1 + below(r, 8);
	for (size_t i = 0; i < k && c.n; i++) {
		size_t at = below(r, c.n);
		c.p[at] = below(r, 2) ? special[below(r, sizeof special - 1)]
		    : (char)rnd(r);
	}
	return c;
}

/* Lines in a new order: a full shuffle, or one line swapped, dropped or
 * repeated. */
static Buf
shuffled(const Buf *b, Rng *r, int how)
{
	size_t nl = 0, cap = 16;
	size_t *st = malloc(cap * sizeof *st), *ln;
	for (size_t i = 0; i < b->n; i++) {
		if (i == 0 || b->p[i - 1] == '\n') {
			if (nl == cap)
				st = realloc(st, (cap *= 2) * sizeof *st);
			st[nl++] = i;
		}
	}
	ln = malloc((nl + 1) * sizeof *ln);
	for (size_t i = 0; i < nl; i++)
		ln[i] = (i + 1 < nl ? st[i + 1] : b->n) - st[i];
	size_t *ord = malloc((nl + 1) * sizeof *ord), no = 0;
	for (size_t i = 0; i < nl; i++)
		ord[no++] = i;
	if (nl > 1 && how == 0) {
		for (size_t i = nl - 1; i > 0; i--) {
			size_t j = below(r, i + 1), t = ord[i];
			ord[i] = ord[j];
			ord[j] = t;
		}
	} else if (nl > 1 && how == 1) {
		size_t i = below(r, nl), j = below(r, nl), t = ord[i];
		ord[i] = ord[j];
		ord[j] = t;
	} else if (nl > 1 && how == 2) {
		size_t i = below(r, nl);
		memmove(ord + i, ord + i + 1, (nl - i - 1) * sizeof *ord);
		no--;
	} else if (nl > 0) {
		size_t i = below(r, nl);
		memmove(ord + i + 1, ord + i, (nl - i) * sizeof *ord);
		no++;
	}
	size_t n = 0;
	for (size_t i = 0; i < no; i++)
		n += ln[ord[i]];
	Buf c = {malloc(n ? n : 1), n};
	n = 0;
	for (size_t i = 0; i < no; i++) {
		memcpy(c.p + n, b->p + st[ord[i]], ln[ord[i]]);
		n += ln[ord[i]];
	}
	free(st);
	free(ln);
	free(ord);
	return c;
}

/* Calls fn on the mutations of b: cuts, flips, shuffles. */
static void
mutations(const Buf *b, Rng *r, void (*fn)(const char *, const Buf *,
    void *), void *arg, const char *name)
{
	char what[512];
	for (int i = 0; i < 12; i++) {
		size_t at = i < 8 ? b->n * (size_t)i / 8 : below(r, b->n);
		Buf c = truncated(b, at);
		snprintf(what, sizeof what, "%s cut at %zu", name, at);
		fn(what, &c, arg);
		free(c.p);
	}
	for (int i = 0; i < 16; i++) {
		Rng before = *r;
		Buf c = flipped(b, r);
		snprintf(what, sizeof what, "%s flipped (rng %llu)", name,
		    (unsigned long long)before.s);
		fn(what, &c, arg);
		free(c.p);
	}
	for (int i = 0; i < 8; i++) {
		Buf c = shuffled(b, r, i % 4);
		snprintf(what, sizeof what, "%s lines shuffled (%d)", name,
		    i % 4);
		fn(what, &c, arg);
		free(c.p);
	}
}

static void
dump_fn(const char *what, const Buf *b, void *arg)
{
	int *count = arg;
	check_dump(what, b);
	++*count;
}

static void
test_robust_dump_mutations(void **state)
{
	(void)state;
	if (!src)
		skip();
	List l = dumps();
	assert_true(l.n >= 20);
	Rng r = {0x9e3779b97f4a7c15ull};
	int count = 0;
	for (uint32_t i = 0; i < l.n; i++) {
		Buf b = readfile(l.v[i]);
		check_dump(l.v[i], &b);
		mutations(&b, &r, dump_fn, &count, l.v[i]);
		free(b.p);
	}
	assert_true(count >= 36 * 20);
	list_free(&l);
}

/* ------------------------------------------------ safetensors mutations */

typedef struct StCase {
	Buf graph;
	char dir[64], path[128];
} StCase;

static void
st_fn(const char *what, const Buf *b, void *arg)
{
	StCase *sc = arg;
	Out o;
	GraphId g = 0;
	Module *m = parse("graph of the weights", sc->graph.p, sc->graph.n,
	    &o, &g);
	assert_int_equal(o.rc, 0);
	writefile(sc->path, b->p, b->n);
	int errs = m->nerrors;
	StFile *f = st_open(m, sc->path);
	o.rc = f ? 0 : -1;
	contract(what, m, &o);
	if (f) {
		for (uint32_t i = 0; i < st_count(f); i++) {
			const Tensor *t = st_get(f, i);
			assert_int_equal(ir_numel(t) *
			    ir_dtype_size((DType)t->dtype), t->nbytes);
			assert_ptr_equal(st_find(f, ir_str(m, t->name)), t);
		}
		o.rc = st_bind(m, f, g);
		if (o.rc == 0 && m->nerrors != errs)
			broken(what, "st_bind accepted with errors", &o);
		contract(what, m, &o);
		st_close(f);
	}
	done(m, &o);
}

/* Header entries in another order: still the same weights. */
static Buf
entries_reordered(const Buf *b)
{
	uint64_t hl = 0;
	for (int i = 7; i >= 0; i--)
		hl = hl << 8 | (unsigned char)b->p[i];
	Buf c = copy(b->p, b->n);
	/* swap the first two top-level entries by text: find the second
	 * "}," at depth 1, after which the next entry starts */
	char *h = c.p + 8, *end = h + hl;
	int depth = 0;
	char *cut[3] = {NULL, NULL, NULL};
	int k = 0;
	for (char *p = h; p < end && k < 3; p++) {
		if (*p == '{' && depth++ == 0)
			cut[k++] = p + 1;
		else if (*p == '}' && --depth == 1)
			cut[k++] = p + 2;  /* past "}," */
		else if (*p == '}' && depth == 0)
			break;
	}
	if (k == 3 && cut[2] < end) {
		size_t a = (size_t)(cut[1] - cut[0]), n = (size_t)(cut[2] -
		    cut[0]);
		char *tmp = malloc(n);
		/* entry 2 followed by entry 1 */
		memcpy(tmp, cut[1], n - a);
		memcpy(tmp + (n - a), cut[0], a);
		memcpy(cut[0], tmp, n);
		free(tmp);
	}
	return c;
}

static void
test_robust_safetensors_mutations(void **state)
{
	(void)state;
	if (!src)
		skip();
	char path[4096];
	StCase sc;
	snprintf(path, sizeof path, "%s/tests/cases/mlp_relu_gelu/graph.txt",
	    src);
	sc.graph = readfile(path);
	snprintf(path, sizeof path,
	    "%s/tests/cases/mlp_relu_gelu/weights.safetensors", src);
	Buf w = readfile(path);
	strcpy(sc.dir, "/tmp/test_robust_XXXXXX");
	assert_non_null(mkdtemp(sc.dir));
	snprintf(sc.path, sizeof sc.path, "%s/w.safetensors", sc.dir);

	/* the original and a reordered header bind */
	Buf re = entries_reordered(&w);
	assert_memory_not_equal(re.p, w.p, w.n);
	for (int i = 0; i < 2; i++) {
		Out o;
		GraphId g = 0;
		Module *m = parse("graph", sc.graph.p, sc.graph.n, &o, &g);
		writefile(sc.path, i ? re.p : w.p, w.n);
		StFile *f = st_open(m, sc.path);
		assert_non_null(f);
		assert_int_equal(st_bind(m, f, g), 0);
		st_close(f);
		done(m, &o);
	}
	free(re.p);

	Rng r = {0x243f6a8885a308d3ull};
	char what[256];
	uint64_t hl = 0;
	for (int i = 7; i >= 0; i--)
		hl = hl << 8 | (unsigned char)w.p[i];
	/* cuts in the length, the header and the data */
	for (int i = 0; i < 24; i++) {
		size_t at = i < 8 ? (size_t)i : i < 16 ? 8 + hl * (size_t)(i -
		    8) / 8 : below(&r, w.n);
		Buf c = truncated(&w, at);
		snprintf(what, sizeof what, "weights cut at %zu", at);
		st_fn(what, &c, &sc);
		free(c.p);
	}
	/* flips, mostly in the header where they matter */
	for (int i = 0; i < 48; i++) {
		Buf c = copy(w.p, w.n);
		size_t k = 1 + below(&r, 4);
		for (size_t j = 0; j < k; j++) {
			size_t at = below(&r, 4) ? below(&r, 8 + hl) :
			    below(&r, c.n);
			c.p[at] = below(&r, 2) ? special[below(&r,
			    sizeof special - 1)] : (char)rnd(&r);
		}
		snprintf(what, sizeof what, "weights flipped (%d)", i);
		st_fn(what, &c, &sc);
		free(c.p);
	}
	/* shuffles: two 8-byte blocks swapped */
	for (int i = 0; i < 16; i++) {
		Buf c = copy(w.p, w.n);
		size_t a = below(&r, c.n - 8), b = below(&r, 8 + hl);
		char t[8];
		memcpy(t, c.p + a, 8);
		memmove(c.p + a, c.p + b, 8);
		memcpy(c.p + b, t, 8);
		snprintf(what, sizeof what, "weights blocks %zu/%zu swapped", a,
		    b);
		st_fn(what, &c, &sc);
		free(c.p);
	}
	unlink(sc.path);
	rmdir(sc.dir);
	free(w.p);
	free(sc.graph.p);
}

/* ------------------------------------------------- the binary's contract */

/* Runs onnxc on graph (and weights) writing dir/out.onnx; checks the exit
 * contract and returns the exit code. */
static int
run_onnxc(const char *what, const char *dir, const char *graph,
    const char *weights)
{
	const char *bin = getenv("ONNXC_BIN");
	char out[4200], err[4200];
	snprintf(out, sizeof out, "%s/out.onnx", dir);
	snprintf(err, sizeof err, "%s/stderr", dir);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int nul = open("/dev/null", O_WRONLY);
		if (fd < 0 || nul < 0)
			_exit(127);
		dup2(fd, 2);
		dup2(nul, 1);
		if (weights)
			execl(bin, bin, graph, "--weights", weights, "-o", out,
			    (char *)NULL);
		else
			execl(bin, bin, graph, "-o", out, (char *)NULL);
		_exit(127);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	Buf e = readfile(err);
	Out o = {.diag = e.p, .len = e.n};
	char *text = malloc(e.n + 1);
	memcpy(text, e.p, e.n);
	text[e.n] = 0;
	if (!WIFEXITED(status))
		broken(what, "onnxc died of a signal", &o);
	int rc = WEXITSTATUS(status);
	struct stat st;
	bool have = stat(out, &st) == 0;
	if (rc != 0 && rc != 1)
		broken(what, "exit code neither 0 nor 1", &o);
	if (strstr(text, "Sanitizer") || strstr(text, "runtime error:"))
		broken(what, "sanitizer report", &o);
	if (rc == 1 && !diagline(text, ""))
		broken(what, "exit 1 without an error: line", &o);
	if (rc == 1 && have)
		broken(what, "exit 1 left the output file behind", &o);
	if (diagline(text, "internal"))
		broken(what, "internal error", &o);
	if (rc == 0) {
		if (!have)
			broken(what, "exit 0 without an output file", &o);
		Buf model = readfile(out);
		Onnx__ModelProto *p = onnx__model_proto__unpack(NULL, model.n,
		    (const uint8_t *)model.p);
		if (!p || !p->graph || p->n_opset_import < 1)
			broken(what, "exit 0 with a model protobuf-c cannot "
			    "read", &o);
		onnx__model_proto__free_unpacked(p, NULL);
		free(model.p);
		unlink(out);
	}
	/* nothing else is left in the folder (no temporary file) */
	DIR *d = opendir(dir);
	struct dirent *de;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && strcmp(de->d_name, "stderr") &&
		    strcmp(de->d_name, "graph.txt") &&
		    strcmp(de->d_name, "w.safetensors"))
			broken(what, de->d_name, &o);
	closedir(d);
	free(text);
	free(e.p);
	return rc;
}

static void
test_robust_driver_sample(void **state)
{
	(void)state;
	if (!src || !getenv("ONNXC_BIN"))
		skip();
	List l = dumps();
	Rng r = {0x13198a2e03707344ull};
	char dir[] = "/tmp/test_robust_drv_XXXXXX";
	assert_non_null(mkdtemp(dir));
	char graph[128], weights[128], what[4300];
	int good = 0;
	snprintf(graph, sizeof graph, "%s/graph.txt", dir);
	snprintf(weights, sizeof weights, "%s/w.safetensors", dir);
	for (uint32_t i = 0; i < l.n; i++) {
		Buf b = readfile(l.v[i]);
		char wsrc[4200];
		snprintf(wsrc, sizeof wsrc, "%.*s/weights.safetensors",
		    (int)(strlen(l.v[i]) - strlen("/graph.txt")), l.v[i]);
		struct stat st;
		bool hasw = stat(wsrc, &st) == 0;
		if (hasw) {
			Buf w = readfile(wsrc);
			/* every fourth case gets damaged weights */
			if (i % 4 == 0 && w.n > 8)
				w.p[8 + below(&r, w.n - 8)] ^= (char)(1 +
				    below(&r, 255));
			writefile(weights, w.p, w.n);
			free(w.p);
		}
		/* a sample of the good cases, unharmed, must convert: the
		 * success path is checked too */
		if (i % 4 == 1 && strstr(l.v[i], "/tests/cases/") && hasw) {
			writefile(graph, b.p, b.n);
			snprintf(what, sizeof what, "onnxc on %s", l.v[i]);
			if (run_onnxc(what, dir, graph, weights) != 0) {
				print_error("%s: exit 1\n", what);
				fail();
			}
			good++;
		}
		for (int k = 0; k < 2; k++) {
			Buf c = k ? flipped(&b, &r) :
			    truncated(&b, below(&r, b.n));
			writefile(graph, c.p, c.n);
			snprintf(what, sizeof what, "onnxc on %s, %s", l.v[i],
			    k ? "flipped" : "cut");
			run_onnxc(what, dir, graph, hasw ? weights : NULL);
			free(c.p);
		}
		unlink(weights);
		free(b.p);
	}
	assert_true(good >= 3);
	unlink(graph);
	char err[160];
	snprintf(err, sizeof err, "%s/stderr", dir);
	unlink(err);
	assert_int_equal(rmdir(dir), 0);
	list_free(&l);
}

/* ------------------------------------------------ hand-made hostile input */

/* A dump around one statement line and one annotation of x. */
static Buf
wrap(const char *xtype, const char *stmt)
{
	const char *fmt = "class M(torch.nn.Module):\n"
	    "    def forward(self, x: \"%s\"):\n"
	    "        %s\n"
	    "        return (x,)\n";
	size_t n = strlen(fmt) + strlen(xtype) + strlen(stmt);
	Buf b = {malloc(n), 0};
	b.n = (size_t)snprintf(b.p, n, fmt, xtype, stmt);
	return b;
}

/* Refused, with an error message containing want. */
static void
refused(const char *what, const Buf *b, const char *want)
{
	Out o;
	GraphId g = 0;
	Module *m = parse(what, b->p, b->n, &o, &g);
	fflush(m->diagout);
	if (o.rc == 0)
		broken(what, "accepted", &o);
	if (!strstr(o.diag, want))
		broken(what, want, &o);
	done(m, &o);
}

static char *
repeat(const char *s, size_t times)
{
	size_t k = strlen(s);
	char *p = malloc(k * times + 1);
	for (size_t i = 0; i < times; i++)
		memcpy(p + i * k, s, k);
	p[k * times] = 0;
	return p;
}

static void
test_robust_hostile_dumps(void **state)
{
	(void)state;
	char *open = repeat("[", 10000), *close = repeat("]", 10000);
	char *stmt = malloc(30000);
	snprintf(stmt, 30000, "y = torch.ops.aten.add.Tensor(x, %s%s)", open,
	    close);
	Buf b = wrap("f32[2]", stmt);
	refused("10000 nested brackets", &b, "nested more than 64 deep");
	free(b.p);

	char *popen_ = repeat("(", 10000), *pclose_ = repeat(")", 10000);
	char *ty = malloc(30000);
	snprintf(ty, 30000, "Sym(%ss0%s)", popen_, pclose_);
	b = wrap(ty, "y = x");
	refused("10000 nested parentheses in Sym()", &b,
	    "bad symbolic expression");
	free(b.p);
	snprintf(ty, 30000, "f32[%ss0%s]", popen_, pclose_);
	b = wrap(ty, "y = x");
	refused("10000 nested parentheses in a dim", &b,
	    "bad dimension expression");
	free(b.p);

	/* s0 + s0 + ...: no nesting, but a chain 5000 long */
	char *chain = repeat("s0 + ", 5000);
	char *ty2 = malloc(strlen(chain) + 16);
	sprintf(ty2, "Sym(%ss0)", chain);
	b = wrap(ty2, "y = x");
	refused("a 5000-term sum", &b, "bad symbolic expression");
	free(b.p);

	b = wrap("f32[99999999999, 99999999999]", "y = x");
	refused("huge dims", &b, "holds more than 2^63 bytes");
	free(b.p);
	b = wrap("f32[99999999999999999999]", "y = x");
	refused("a dim over int64", &b, "bad dimension expression");
	free(b.p);
	b = wrap("f32[-3]", "y = x");
	refused("a negative dim", &b, "negative dimension -3");
	free(b.p);
	char *ones = repeat("1, ", 100);
	char *ty3 = malloc(strlen(ones) + 16);
	sprintf(ty3, "f32[%s1]", ones);
	b = wrap(ty3, "y = x");
	refused("rank 101", &b, "more than 64 dimensions");
	free(b.p);

	/* NUL bytes inside a line */
	b = wrap("f32[2]", "y = torch.ops.aten.relu.default(x)");
	char *nul = strstr(b.p, "relu");
	nul[1] = 0;
	nul[2] = 0;
	refused("NUL bytes", &b, "unexpected NUL byte");
	free(b.p);

	/* a 20 MB line, and a 100 KB name */
	size_t big = 20u << 20;
	char *line = malloc(big + 16);
	memcpy(line, "y = x + ", 8);
	memset(line + 8, 'a', big);
	line[8 + big] = 0;
	b = wrap("f32[2]", line);
	refused("a 20 MB line", &b, "line longer than 16 MB");
	free(b.p);
	line[8 + (100u << 10)] = 0;
	b = wrap("f32[2]", line);
	refused("a 100 KB name", &b, "name longer than 64 KB");
	free(b.p);
	free(line);

	/* one getitem far out: 65536 values from 20 bytes */
	char *bomb = malloc(64 * 100), *o = bomb;
	for (int i = 0; i < 64; i++)
		o += sprintf(o, "%st%d = torch.ops.aten.split.Tensor(x, 1)\n"
		    "        u%d = t%d[65535]\n", i ? "        " : "", i, i, i);
	b = wrap("f32[2]", bomb);
	refused("getitem index bomb", &b, "outputs (from its getitem uses)");
	free(b.p);

	/* 11000 distinct symbols, 1000 per annotation */
	size_t cap = 11 * (1000 * 12 + 128);
	char *syms = malloc(cap), *so = syms;
	for (int k = 0; k < 11; k++) {
		so += sprintf(so, "%sz%d: \"Sym(", k ? "        " : "", k);
		for (int i = 0; i < 1000; i++)
			so += sprintf(so, "%ss%d", i ? " + " : "",
			    k * 1000 + i);
		so += sprintf(so, ")\" = torch.ops.aten.sym_size.int(x, "
		    "0)\n");
	}
	so[-1] = 0;
	b = wrap("f32[2]", syms);
	refused("11000 symbols", &b, "distinct symbols; onnxc handles at most");
	free(b.p);
	free(syms);

	/* 70000 outputs */
	char *outs = repeat("x, ", 70000);
	char *ret = malloc(strlen(outs) + 16);
	sprintf(ret, "return (%s)", outs);
	b = wrap("f32[2]", ret);
	refused("70000 outputs", &b, "more than 65536 outputs");
	free(b.p);
	free(outs);
	free(ret);

	/* 2000 classes */
	char *cls = repeat("class A(torch.nn.Module):\n    def forward(self, "
	    "x: \"f32[2]\"):\n        return (x,)\n", 2000);
	b = copy(cls, strlen(cls));
	refused("2000 classes", &b, "more than 1024 classes");
	free(b.p);

	free(open);
	free(close);
	free(stmt);
	free(popen_);
	free(pclose_);
	free(ty);
	free(chain);
	free(ty2);
	free(ones);
	free(ty3);
	free(bomb);
	free(cls);
}

/* A safetensors file from a header, with n data bytes (zero). */
static void
st_refused(const char *what, const char *json, size_t n, uint64_t hlen,
    const char *want)
{
	char dir[] = "/tmp/test_robust_st_XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[64];
	snprintf(path, sizeof path, "%s/w.safetensors", dir);
	size_t hl = strlen(json);
	uint64_t len = hlen ? hlen : hl;
	char *buf = calloc(1, 8 + hl + n);
	for (int i = 0; i < 8; i++)
		buf[i] = (char)(len >> (8 * i));
	memcpy(buf + 8, json, hl);
	writefile(path, buf, 8 + hl + n);
	Module *m = ir_module_new();
	Out o = {0};
	m->diagout = open_memstream(&o.diag, &o.len);
	StFile *f = st_open(m, path);
	o.rc = f ? 0 : -1;
	contract(what, m, &o);
	fflush(m->diagout);
	if (f || !strstr(o.diag, want))
		broken(what, want, &o);
	st_close(f);
	done(m, &o);
	free(buf);
	unlink(path);
	rmdir(dir);
}

static void
test_robust_hostile_safetensors(void **state)
{
	(void)state;
	st_refused("shape numbers over int64",
	    "{\"w\":{\"dtype\":\"F32\",\"shape\":[99999999999999999999],"
	    "\"data_offsets\":[0,4]}}", 4, 0, "number too large in shape");
	st_refused("shape product over int64",
	    "{\"w\":{\"dtype\":\"F32\",\"shape\":[9223372036854775807,"
	    "9223372036854775807],\"data_offsets\":[0,4]}}", 4, 0,
	    "has too many elements");
	st_refused("shape bytes over uint64",
	    "{\"w\":{\"dtype\":\"F64\",\"shape\":[4611686018427387904],"
	    "\"data_offsets\":[0,8]}}", 8, 0, "has too many bytes");
	st_refused("header length 2^63", "{}", 0, UINT64_C(1) << 63,
	    "reaches past the end of the file");
	st_refused("a tensor bigger than the file",
	    "{\"w\":{\"dtype\":\"F32\",\"shape\":[1000000],"
	    "\"data_offsets\":[0,4000000]}}", 16, 0,
	    "reach past the data section");
	st_refused("overlapping tensors",
	    "{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]},"
	    "\"b\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[8,24]}}",
	    24, 0, "overlap those of tensor 'a'");
	char *deep = repeat("[", 100000);
	char *json = malloc(strlen(deep) + 64);
	sprintf(json, "{\"w\":{\"x\":%s", deep);
	st_refused("100000 nested arrays", json, 0, 0, "nesting too deep");
	free(deep);
	free(json);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_robust_dump_mutations),
		cmocka_unit_test(test_robust_safetensors_mutations),
		cmocka_unit_test(test_robust_driver_sample),
		cmocka_unit_test(test_robust_hostile_dumps),
		cmocka_unit_test(test_robust_hostile_safetensors),
	};
	return cmocka_run_group_tests(tests, group_setup, NULL);
}
