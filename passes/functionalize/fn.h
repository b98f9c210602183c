/* fn.h - inside the functionalize plugin: what the sweep knows of each
 * value (functionalize.c) and the views it replays and undoes (views.c). */
#ifndef FN_H
#define FN_H

#include <stdint.h>

#include <onnxc/plugin.h>

enum { MAXDEPTH = 64, MAXR = 64 };

/* How a view is undone when something is written into it. */
typedef enum Inv {
	INV_NONE,      /* not a view */
	INV_SLICE,     /* slice_scatter(p, w, dim, start, end, step) */
	INV_NARROW,    /* slice_scatter(p, w, dim, start, start + length) */
	INV_SELECT,    /* select_scatter(p, w, dim, index) */
	INV_RESHAPE,   /* view_as(w, p) */
	INV_TRANSPOSE, /* transpose(w, a, b) */
	INV_T,         /* t(w) */
	INV_PERMUTE,   /* permute(w, inverse) */
	INV_ALIAS,     /* w */
	INV_EXPAND,    /* view_as(w, p) when it broadcasts nothing */
	INV_REFUSE     /* a view whose writes we do not invert */
} Inv;

/* A view op: how it is undone, and whether it keeps contiguity. */
typedef struct ViewOp {
	const char *op;
	uint8_t inv;
	uint8_t contig; /* keeps a contiguous tensor contiguous */
	uint8_t maybe;  /* a view only of a contiguous tensor */
} ViewOp;

/* What the sweep knows of one value. */
typedef struct Val {
	onnxc_value root;   /* its storage's root; 0: itself */
	onnxc_value parent; /* the value it is a view of; 0: a root */
	onnxc_node view;    /* the node that made it from parent */
	uint32_t ver;       /* the root's version it was made at */
	uint8_t inv;        /* Inv of view */
	uint8_t contig;     /* contiguous (roots are) */
	uint8_t multi;      /* an output of split/chunk/unbind: a select (inv
	                     * INV_SELECT, index mstart) or slice (INV_SLICE,
	                     * [mstart, mend)) of dim mdim, or INV_REFUSE */
	int32_t mdim;
	int64_t mstart, mend;
	onnxc_value remap;  /* an erased in-place op's output: its new value */
	onnxc_value cur;    /* roots: the current value; 0: itself */
	uint32_t rver;      /* roots: the current version */
	onnxc_value fresh;  /* regenerated at version freshver */
	uint32_t freshver;
} Val;

typedef struct Fn {
	onnxc_ctx *ctx;
	const onnxc_host_api *h;
	onnxc_graph g;
	Val *v;
	uint32_t nv;
	int bad;      /* stop: something failed */
	Val none;     /* what fn_val gives when its table cannot grow */
	int reported; /* and it was reported */
	onnxc_graph *todo; /* bodies of higher-order ops still to sweep */
	uint32_t ntodo, ctodo;
} Fn;

/* --- views.c --- */
/* the tracking of v (the table grows as values are made) */
Val *fn_val(Fn *f, onnxc_value v);
/* reading only: values never tracked read as zero, and the table does
 * not grow for them (a graph without views or in-place ops needs none) */
const Val *fn_get(Fn *f, onnxc_value v);
/* v's storage root */
onnxc_value fn_root(Fn *f, onnxc_value v);
/* an FX node's op, "" for others */
const char *fn_opname(Fn *f, const onnxc_node_info *ni);
/* the view op named op, or NULL */
const ViewOp *fn_view(const char *op);
/* split/chunk/unbind: several outputs viewing the input */
int fn_is_multiview(const char *op);
/* output k of multi-view node n (split/chunk/unbind) as a select or a
 * slice of its input, in *o */
void fn_multi_piece(Fn *f, onnxc_node n, const char *op, uint32_t k,
    Val *o);
/* a new FX node op(args) standing for node like, typed as value type */
onnxc_value fn_emit(Fn *f, const char *op, const onnxc_arg *args,
    uint32_t n, onnxc_node like, onnxc_value type, const char *tag);
onnxc_arg fn_a_val(onnxc_value v);
onnxc_arg fn_a_int(int64_t i);
/* positional argument i of node n for a new node; None when absent */
onnxc_arg fn_arg_at(Fn *f, onnxc_node n, uint32_t i);
/* the value v reads as now (regenerated after writes to its storage) */
onnxc_value fn_regen(Fn *f, onnxc_value v);
/* pc (v's parent as it is now) with view v replaced by w; 0 after an
 * error (reported at node at) */
onnxc_value fn_unview(Fn *f, onnxc_value v, onnxc_value pc, onnxc_value w,
    onnxc_node at);

#endif
