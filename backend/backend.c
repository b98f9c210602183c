/* backend.c - what every writer shares: the table of writers, tensor
 * checks, the data file of external initializers, and node names (see
 * backend.h).  Each format lives in its own file and is one row here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

extern const BeWriter be_onnx, be_ort, be_text;

/* The default first: an output name no writer claims is ONNX. */
const BeWriter *const be_writers[] = {&be_onnx, &be_ort, &be_text, NULL};

const BeWriter *
be_writer_named(const char *name)
{
	for (const BeWriter *const *w = be_writers; *w; w++)
		if (!strcmp((*w)->name, name))
			return *w;
	return NULL;
}

const BeWriter *
be_writer_for(const char *path)
{
	size_t n = strlen(path);
	for (const BeWriter *const *w = be_writers; *w; w++) {
		size_t k = (*w)->ext ? strlen((*w)->ext) : 0;
		if (k && n > k && !strcmp(path + n - k, (*w)->ext))
			return *w;
	}
	return be_writers[0];
}

const char *
be_writer_names(char *buf, size_t cap)
{
	size_t n = 0, count = 0;
	while (be_writers[count])
		count++;
	buf[0] = 0;
	for (size_t i = 0; i < count && n < cap; i++)
		n += (size_t)snprintf(buf + n, cap - n, "%s%s",
		    i == 0 ? "" : i + 1 == count ? " or " : ", ",
		    be_writers[i]->name);
	return buf;
}

int
be_ir_version(int opset)
{
	/* the ONNX release table: each opset ships with one IR version */
	static const struct {
		int opset, ir;
	} table[] = {
		{7, 3}, {8, 3}, {9, 4}, {10, 5}, {11, 6}, {12, 7}, {13, 7},
		{14, 7}, {15, 8}, {16, 8}, {17, 8}, {18, 8}, {19, 9}, {20, 9},
		{21, 10}, {22, 10}, {23, 11},
	};
	for (size_t i = 0; i < sizeof table / sizeof *table; i++)
		if (table[i].opset == opset)
			return table[i].ir;
	return 0;
}

StrId
be_value_name(Module *m, GraphId gid, const Graph *g, ValId v)
{
	const Value *p = ir_val(g, v);
	if (p->name)
		return p->name;
	char buf[64];
	if (gid == m->main || !g->parent)
		snprintf(buf, sizeof buf, "_v%u", v);
	else
		snprintf(buf, sizeof buf, "_g%u_v%u", gid, v);
	return ir_intern(m, buf);
}

/* ------------------------------------------------------------- tensors */

bool
be_raw_size(DType dt, uint64_t numel, uint64_t *out)
{
	size_t sz = ir_dtype_size(dt);
	if (dt == DT_U4 || dt == DT_I4 || dt == DT_F4E2M1) {
		*out = numel / 2 + numel % 2;   /* two per byte */
		return true;
	}
	if (sz == 0)
		return false;
	if (numel > UINT64_MAX / sz)
		return false;
	*out = numel * sz;
	return true;
}

bool
be_tensor_check(Module *m, const Tensor *t, const char *name,
    const char *format, const char *backend)
{
	DType dt = (DType)t->dtype;
	uint64_t numel = 1, need;
	bool ok = dt > DT_UNDEF && dt < DT_COUNT && dt != DT_STRING &&
	    t->rank >= 0;
	const char *nm = name ? name : ir_str(m, t->name);
	for (int32_t i = 0; ok && i < t->rank; i++) {
		if (t->dims[i] < 0 || (t->dims[i] &&
		    numel > UINT64_MAX / (uint64_t)t->dims[i]))
			ok = false;
		else
			numel *= (uint64_t)t->dims[i];
	}
	if (!ok || !be_raw_size(dt, numel, &need)) {
		ir_error(m, (Loc){0, 0}, "cannot write tensor '%s' of type "
		    "%s to %s", nm, ir_dtype_name(dt), format);
		return false;
	}
	if (need != t->nbytes || (need && !t->data)) {
		ir_error(m, (Loc){0, 0}, "internal error in the %s backend: "
		    "tensor '%s' has %llu bytes, its type and shape need %llu",
		    backend, nm, (unsigned long long)t->nbytes,
		    (unsigned long long)need);
		return false;
	}
	return true;
}

static bool
is_int_item(const Arg *a)
{
	return a->kind == A_INT || a->kind == A_BOOL || a->kind == A_DTYPE;
}

BeListKind
be_list_kind(const Graph *g, const Arg *a)
{
	const Arg *it = ir_items(g, a);
	uint32_t cnt = a->u.list.n, nint = 0, nnum = 0, nstr = 0;
	for (uint32_t i = 0; i < cnt; i++) {
		nint += is_int_item(&it[i]);
		nnum += is_int_item(&it[i]) || it[i].kind == A_FLOAT;
		nstr += it[i].kind == A_STR;
	}
	return nint == cnt ? BE_LIST_INTS : nnum == cnt ? BE_LIST_FLOATS
	    : nstr == cnt ? BE_LIST_STRINGS : BE_LIST_MIXED;
}

/* -------------------------------------------------------- external data */

/* ONNX Runtime maps tensors of the data file (Env::MapFileIntoMemory) at
 * page granularity, and Windows maps at 64 KiB; a tensor of 1 MiB or more
 * starts on a 64 KiB boundary (also a multiple of 4 and 16 KiB pages),
 * smaller ones on 64 bytes (any element type, a cache line) so padding
 * stays small. */
#define EXT_ALIGN_BIG 65536
#define EXT_ALIGN_SMALL 64
#define EXT_BIG (UINT64_C(1) << 20)

uint32_t
be_ext_place(BeInit *in, uint32_t n, uint64_t threshold)
{
	uint64_t off = 0;
	uint32_t moved = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t len = in[i].t->nbytes;
		if (len == 0 || len < threshold)
			continue;
		uint64_t al = len >= EXT_BIG ? EXT_ALIGN_BIG : EXT_ALIGN_SMALL;
		off = (off + al - 1) & ~(al - 1);
		in[i].off = off;
		in[i].ext = true;
		off += len;
		moved++;
	}
	return moved;
}

int
be_ext_write(BeOut *o, const BeInit *in, uint32_t n)
{
	int err = 0;
	for (uint32_t i = 0; !err && i < n; i++) {
		if (!in[i].ext)
			continue;
		uint64_t al = in[i].t->nbytes >= EXT_BIG ? EXT_ALIGN_BIG
		    : EXT_ALIGN_SMALL;
		if (!(err = be_out_align(o, al)))
			err = be_out_write(o, in[i].t->data, in[i].t->nbytes);
	}
	return err;
}

/* ------------------------------------------------------------ node names */

/* Taken names are kept by the StrId of the text after "node_": a base
 * met for the first time is its own key, so the common case interns
 * nothing; only a repeated base looks its "_k" forms up. */
StrId
be_node_name(Module *m, BeNames *nm, StrId base)
{
	const char *text = ir_str(m, base);
	StrId b = base, s;
	if (strnlen(text, 281) > 280)
		b = ir_internn(m, text, 280);
	vgrow((void **)&nm->serial, &nm->nserial, b + 1, sizeof *nm->serial);
	for (s = b; s < nm->nused && nm->used[s];) {
		char buf[300];
		snprintf(buf, sizeof buf, "%.280s_%u", text, ++nm->serial[b]);
		s = ir_intern(m, buf);
	}
	vgrow((void **)&nm->used, &nm->nused, s + 1, 1);
	nm->used[s] = 1;
	return s;
}

const char *
be_node_text(Module *m, StrId name, char buf[BE_NODE_NAME_MAX], size_t *len)
{
	size_t n = ir_strlen(m, name);
	if (n > BE_NODE_NAME_MAX - 6)
		n = BE_NODE_NAME_MAX - 6;
	memcpy(buf, "node_", 5);
	memcpy(buf + 5, ir_str(m, name), n);
	buf[5 + n] = 0;
	if (len)
		*len = 5 + n;
	return buf;
}

void
be_names_free(BeNames *nm)
{
	free(nm->used);
	free(nm->serial);
	*nm = (BeNames){0};
}
