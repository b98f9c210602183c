/* pt2_int.h - private to the .pt2 frontend.  Its files call one way:
 *
 *   pt2.c (open, bind, close)
 *     -> pt2_archive.c (layout, program, JSON documents)
 *     -> pt2_sig.c (the program) -> pt2_graph.c <-> pt2_args.c -> pt2_expr.c
 *     -> pt2_weights.c (>= 2.7 configs) -> pt2_pickle.c -> pt2_view.c
 *     -> pt2_view.c (tensor views, the binding loop)
 *
 * (pt2_graph.c and pt2_args.c recurse into each other for subgraphs), and
 * below them only the shared pieces: fe.h, json.c, zip.c, pickle.c and
 * safetensors.c's binding checks. */
#ifndef ONNXC_PT2_INT_H
#define ONNXC_PT2_INT_H

#include "fe.h"
#include "json.h"
#include "pt2.h"
#include "zip.h"

struct Pt2 {
	Module *m;
	const char *path;        /* the archive, as given */
	Zip *z;
	Arena *ja;               /* JSON trees */
	const char *root;        /* "model/" or "" */
	const char *prog;        /* program name */
	bool v26;                /* torch <= 2.6 layout */
	const char *progfile, *progsrc; /* the program's JSON, for messages */
	size_t proglen;
	void **owned;            /* materialized tensors */
	uint32_t nowned, cowned;
	Zip **inner;             /* torch.save zips inside the archive */
	uint32_t ninner, cinner;
	Arena *pa;               /* pickled tensors' records */
	/* budgets that follow from the archive's size, so that a small
	 * hostile file cannot ask for gigabytes */
	uint64_t inflate_left;   /* bytes entries may still inflate to */
	uint64_t copy_left;      /* bytes strided views may still copy */
};

/* A tensor as sizes, strides (elements) and an offset into a storage. */
typedef struct Pt2View {
	uint8_t dtype;
	int32_t rank;
	int64_t sizes[64], strides[64], offset;
	/* set by pt2_view: a view its storage does not hold in order, to be
	 * copied by pt2_view_copy once its shape is known to be right */
	bool strided;
	const unsigned char *st;
} Pt2View;

/* pt2_archive.c: entry name as the current JSON document (m->file,
 * m->src); NULL after an error (or when absent and not required: no
 * error) */
const JVal *pt2_doc(Pt2 *a, const char *name, bool required);
/* The layout, checked whole: a->root, a->v26 and a->prog set, and the
 * program's entry in *progentry.  -1 after reporting. */
int pt2_layout(Pt2 *a, const char *program, const char **progentry);
/* The program's schema_version, against the newest onnxc reads. */
int pt2_check_version(Module *m, const JVal *prog);

/* pt2_weights.c: torch >= 2.7, each weight input's target in the weights
 * or the constants config */
int pt2_bind_configs(Pt2 *a, GraphId g);

/* pt2_view.c */
void pt2_weights_free(Pt2 *a);
/* the view v of storage st[0..stlen) into t (dims point into v), every
 * size, stride and offset checked against the storage: t->data points
 * into st when the view is contiguous, else it is NULL and v->strided is
 * set; an error message, or NULL */
const char *pt2_view(Pt2 *a, Pt2View *v, const unsigned char *st,
    uint64_t stlen, Tensor *t);
/* a strided view's elements in row-major order into t->data, a copy
 * owned by a, within a->copy_left; an error message, or NULL */
const char *pt2_view_copy(Pt2 *a, const Pt2View *v, Tensor *t);
/* Where a layout keeps the tensor of a signature target: 1 with *t filled
 * (its dims in *view), 0 when it has none, -1 after reporting. */
typedef int (*Pt2Find)(Pt2 *a, void *ctx, StrId target, Tensor *t,
    Pt2View *view);
/* Binds every parameter, buffer and constant input of graph g to the
 * tensor find gives for its target: the loop both layouts share. */
int pt2_bind_each(Pt2 *a, GraphId g, Pt2Find find, void *ctx);

/* pt2_pickle.c: torch.save files (a zip with data.pkl) */
/* the one tensor of the torch.save file d[0..len) (entry name path) */
int pt2_pickled(Pt2 *a, const char *path, const unsigned char *d,
    size_t len, Tensor *t, Pt2View *v);
/* torch <= 2.6: bind from serialized_state_dict.pt and
 * serialized_constants.pt */
int pt2_bind_pickles(Pt2 *a, GraphId g);

/* pt2_expr.c: a sympy srepr ("Mul(Integer(2), Symbol('s0', ...))") into
 * an expression; -1 with *why on text it cannot read or undefined
 * arithmetic (division or modulo by zero). */
int pt2_srepr(Module *m, const char *s, size_t n, ExprId *out,
    const char **why);

/* pt2_sig.c: the program object (models/NAME.json) into FX graphs of m,
 * the same IR fx_parse builds from the dump.  Returns -1 after errors. */
int pt2_graph(Module *m, const JVal *program, GraphId *out);

/* pt2_graph.c: one graph (and its subgraphs, depth-first, as the dump
 * prints them) being built */
typedef struct GCtx {
	Module *m;
	const JVal *tvals, *symint, *symbool, *symfloat; /* of this graph */
	StrMap names;      /* value name -> ValId */
	StrMap meta;       /* value name -> index+1 into metas */
	const JVal **metas;
	uint32_t nmetas, cmetas;
	StrMap used;       /* names read by some argument or output */
	StrMap suffix;     /* nameless nodes' base name -> next _N to try */
	StrMap kwseen;     /* keyword name -> the last node (nnode) using it */
	uint32_t nnode;    /* nodes read so far, from 1 */
	Graph *g;
	GraphId gid;
	bool hop;          /* the node being read is a higher-order op */
	int depth;         /* subgraph nesting: 0 for the program's graph */
} GCtx;
int pt2_build(Module *m, const JVal *graph, const char *name,
    GraphId parent, int depth, GraphId *out);

/* pt2_args.c */
/* ScalarType codes of torch/_export/serde/schema.py -> DType; DT_UNDEF
 * for codes onnxc has no type for */
DType pt2_dtype(int64_t code);
/* {"as_x": payload}: the payload, *key the one key; NULL if not that */
const JVal *pt2_union(const JVal *v, const char **key);
StrId pt2_jname(Module *m, const JVal *v);       /* a non-empty string */
/* {"name": x} or {"as_name": x} */
StrId pt2_refname(Module *m, const JVal *v);
ValId pt2_lookup(GCtx *c, const JVal *v, StrId name); /* 0 after error */
bool pt2_arg(GCtx *c, const JVal *v, Arg *out, int depth);
/* 1 (FX positional) or 2 (keyword) for node input a; -1 if malformed */
int64_t pt2_argkind(GCtx *c, StrId op, const JVal *a);

#endif
