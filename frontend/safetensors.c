/* safetensors.c - map a .safetensors file and bind its tensors to a graph;
 * its header is read by st_header.c.
 *
 * The format: an 8-byte little-endian header length N, N bytes of JSON
 * (an object mapping tensor names to {"dtype", "shape", "data_offsets"},
 * plus an optional "__metadata__" object of strings), then the data
 * section.  data_offsets are [begin, end) relative to the data section.
 *
 * The file is mapped read-only and tensor data is never copied: Tensor.data
 * points into the mapping, which lives until st_close.  Everything in the
 * header is checked before use, since the file is user input.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reader.h"
#include "st_int.h"

/* ------------------------------------------------------------ diagnostics */

static void
at_file(StFile *f, const char *fmt, ...)
{
	DiagSrc src = {f->path, NULL, 0};
	va_list ap;
	va_start(ap, fmt);
	ir_vdiag_in(f->m, &src, "error", (Loc){0, 0}, fmt, ap);
	va_end(ap);
}

/* An error about the file, against the weights path (the file has no
 * text lines to show): "PATH: error: tensor 'NAME': message". */
void
st_bad(StFile *f, const char *tensor, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (tensor)
		at_file(f, "tensor '%s': %s", tensor, msg);
	else
		at_file(f, "%s", msg);
}

/* Whether p[0..n) is one short line of printable text (its length, the
 * newline left out, in *len): what a symbolic link becomes in a checkout
 * or a copy that does not keep links. */
static bool
text_line(const unsigned char *p, size_t n, int *len)
{
	size_t k = n && p[n - 1] == '\n' ? n - 1 : n;
	if (k == 0 || k > 400)
		return false;
	for (size_t i = 0; i < k; i++)
		if (p[i] < 0x20 || p[i] > 0x7e)
			return false;
	*len = (int)k;
	return true;
}

/* ------------------------------------------------------------------- API */

static bool
little_endian(void)
{
	const uint16_t one = 1;
	unsigned char b;
	memcpy(&b, &one, 1);
	return b == 1;
}

int
st_fd(const StFile *f, const void **map, size_t *len)
{
	*map = f->map;
	*len = f->size;
	return f->fd;
}

static StFile *
open_file(Module *m, const char *path)
{
	StFile *f = xrealloc(NULL, sizeof *f);
	memset(f, 0, sizeof *f);
	f->fd = -1;
	f->m = m;
	f->path = arena_strndup(m->arena, path, strlen(path));

	if (!little_endian()) {
		/* tensor bytes go to ONNX raw_data untouched, and both
		 * formats are little-endian */
		st_bad(f, NULL, "reading weights needs a little-endian host");
		goto fail;
	}
	/* O_NONBLOCK: opening a FIFO must not wait for a writer */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		st_bad(f, NULL, "cannot open: %s", strerror(errno));
		goto fail;
	}
	f->fd = fd;
	struct stat st;
	if (fstat(fd, &st) < 0) {
		st_bad(f, NULL, "cannot stat: %s", strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		st_bad(f, NULL, "not a regular file (it is %s)",
		    fe_file_kind(st.st_mode));
		goto fail;
	}
	if (st.st_size < 8) {
		st_bad(f, NULL, "file is %lld bytes, too short for the 8-byte "
		    "header length", (long long)st.st_size);
		goto fail;
	}
	if ((uint64_t)st.st_size > SIZE_MAX) {
		st_bad(f, NULL, "file too large to map");
		goto fail;
	}
	f->size = (size_t)st.st_size;
	void *p = mmap(NULL, f->size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		st_bad(f, NULL, "cannot map: %s", strerror(errno));
		goto fail;
	}
	f->map = p;

	uint64_t hlen = 0;
	for (int i = 7; i >= 0; i--)
		hlen = hlen << 8 | f->map[i];
	int line;
	if (hlen > f->size - 8 && text_line(f->map, f->size, &line)) {
		st_bad(f, NULL, "header length %llu reaches past the end of "
		    "the file (%zu bytes): the file is a line of text, '%.*s', "
		    "not safetensors (a symbolic link copied as a file?)",
		    (unsigned long long)hlen, f->size, line, f->map);
		goto fail;
	}
	if (hlen > f->size - 8) {
		st_bad(f, NULL, "header length %llu reaches past the end of "
		    "the file (%zu bytes)", (unsigned long long)hlen, f->size);
		goto fail;
	}
	f->data = f->map + 8 + hlen;
	f->datalen = f->size - 8 - hlen;
	if (!st_header(f, (const char *)f->map + 8, (size_t)hlen))
		goto fail;
	return f;
fail:
	st_close(f);
	return NULL;
}

StFile *
st_open(Module *m, const char *path)
{
	/* problems with the file are reported against the file (bad) */
	return open_file(m, path);
}

void
st_close(StFile *f)
{
	if (!f)
		return;
	if (f->map)
		munmap((void *)f->map, f->size);
	if (f->fd >= 0)
		close(f->fd);
	free(f->t);
	free(f->byname);
	free(f);
}

uint32_t
st_count(const StFile *f)
{
	return f->n;
}

const Tensor *
st_get(const StFile *f, uint32_t i)
{
	if (i >= f->n)
		BUG("tensor %u of %u", i, f->n);
	return &f->t[i];
}

const Tensor *
st_find(const StFile *f, const char *name)
{
	uint32_t lo = 0, hi = f->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const Tensor *t = &f->t[f->byname[mid]];
		int c = strcmp(ir_str(f->m, t->name), name);
		if (c == 0)
			return t;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static const char *
role_name(Role r)
{
	switch (r) {
	case ROLE_PARAM: return "parameter";
	case ROLE_BUFFER: return "buffer";
	case ROLE_CONST: return "constant";
	default: return "input";
	}
}

/* An annotation's shape as written: "[64, s0, 7, 7]". */
static void
annot_text(Module *m, char *buf, size_t cap, const Dim *d, int32_t rank)
{
	size_t k;
	if (rank < 0) {
		snprintf(buf, cap, "of unknown rank");
		return;
	}
	k = str_addf(buf, cap, 0, "[");
	for (int32_t i = 0; i < rank && k < cap; i++)
		k = str_addf(buf, cap, k, "%s%s", i ? ", " : "",
		    ir_dim_text(m, d[i]));
	str_addf(buf, cap, k, "]");
}

/* The tensor for a weight input: its target as written, then with '.' as
 * '_' (readable dumps name parameters "conv_weight"), then the input's
 * own name. */
static const Tensor *
lookup(StFile *f, const char *target, const char *own)
{
	const Tensor *t = st_find(f, target);
	if (t)
		return t;
	size_t n = strlen(target);
	char *alt = xrealloc(NULL, n + 1);
	for (size_t i = 0; i <= n; i++)
		alt[i] = target[i] == '.' ? '_' : target[i];
	t = st_find(f, alt);
	free(alt);
	if (!t && own && *own)
		t = st_find(f, own);
	return t;
}

/* Checks t against weight input v of g (dtype, shape) and binds it;
 * symbolic dims of the annotation take the tensor's numbers (counted in
 * *nsym, the first described in first). */
int
st_bind_value(Module *m, GraphId gid, ValId v, const Tensor *t,
    const char *src, StSymNote *note)
{
	Graph *g = ir_graph(m, gid);
	Value *val = ir_val(g, v);
	const char *own = ir_str(m, val->name);
	const char *target = val->target ? ir_str(m, val->target) : own;
	const char *what = role_name((Role)val->role);
	const char *tn = ir_str(m, t->name);
	if (val->kind != VK_TENSOR) {
		ir_error(m, (Loc){0, 0}, "%s '%s' is not a tensor, but %s has "
		    "tensor '%s' for it", what, own, src, tn);
		return -1;
	}
	char want[256], got[256];
	st_shape_text(got, sizeof got, t->dims, t->rank);
	if (val->dtype != t->dtype) {
		ir_error(m, (Loc){0, 0}, "%s: tensor '%s' is %s %s but %s '%s' "
		    "is %s", src, tn, st_dtype_name(t->dtype), got, what, own,
		    ir_dtype_name(val->dtype));
		return -1;
	}
	const Dim *d = ir_dims(g, v);
	bool same = val->rank == t->rank, symbolic = false;
	for (int32_t k = 0; same && k < val->rank; k++) {
		if (d[k].e)
			symbolic = true;
		else if (d[k].n != t->dims[k])
			same = false;
	}
	annot_text(m, want, sizeof want, d, val->rank);
	if (!same) {
		ir_error(m, (Loc){0, 0}, "%s: tensor '%s' has shape %s but %s "
		    "'%s' is %s %s", src, tn, got, what, own,
		    ir_dtype_name(val->dtype), want);
		return -1;
	}
	if (symbolic) {
		/* The weights' shapes are facts; a symbol here means the
		 * dump generalised a size that happened to equal a dynamic
		 * one.  Only this value's dims change. */
		if (!note->nsym++)
			snprintf(note->first, sizeof note->first, "%s '%s' is "
			    "annotated %s %s, but %s has %s", what, own,
			    ir_dtype_name(val->dtype), want, tn, got);
		ArenaMark mk = arena_mark(m->scratch);
		Dim *wd = arena_array(m->scratch, (size_t)val->rank,
		    sizeof *wd);
		for (int32_t k = 0; k < val->rank; k++)
			wd[k] = (Dim){t->dims[k], 0};
		/* a new run: dims may be shared by values of one shape */
		ir_set_tensor(g, v, (DType)val->dtype, val->rank, wd);
		arena_release(m->scratch, mk);
	}
	Tensor b = *t;
	b.name = ir_intern(m, target);
	ir_val(g, v)->init = ir_tensor(m, &b);
	return 0;
}

void
st_sym_note(Module *m, const StSymNote *note, const char *src)
{
	if (note->nsym)
		ir_warning(m, (Loc){0, 0}, "%s; using the shapes in %s for "
		    "this and %u other weight%s with symbolic dims",
		    note->first, src, note->nsym - 1,
		    note->nsym == 2 ? "" : "s");
}

static int
bind(Module *m, StFile *f, GraphId gid, bool partial)
{
	Graph *g = ir_graph(m, gid);
	int errs = m->nerrors;
	StSymNote note = {0};
	for (uint32_t i = 0; i < g->ninputs; i++) {
		ValId v = g->inputs[i];
		Value *val = ir_val(g, v);
		if (val->role != ROLE_PARAM && val->role != ROLE_BUFFER &&
		    val->role != ROLE_CONST)
			continue;
		const char *own = ir_str(m, val->name);
		const char *target = val->target ? ir_str(m, val->target)
		    : own;
		const Tensor *t = lookup(f, target, own);
		if (!t && !partial)
			ir_error(m, (Loc){0, 0}, "no tensor '%s' in %s "
			    "(needed by %s '%s')", target, f->path,
			    role_name((Role)val->role), own);
		if (t)
			st_bind_value(m, gid, v, t, f->path, &note);
		g = ir_graph(m, gid);
	}
	st_sym_note(m, &note, f->path);
	return m->nerrors == errs ? 0 : -1;
}

int
st_bind(Module *m, StFile *f, GraphId gid)
{
	return bind(m, f, gid, false);
}

int
st_bind_over(Module *m, StFile *f, GraphId gid)
{
	return bind(m, f, gid, true);
}
