/* fe.h - the pieces every frontend may use, openly: a map keyed by
 * interned strings, FX type annotations, op names and the graph
 * signature.  The dump reader (fx_*) and the archive reader (pt2_*) both
 * build FX graphs through these, so that the two give the same IR; neither
 * reaches into the other's private header. */
#ifndef ONNXC_FE_H
#define ONNXC_FE_H

#include "../ir/ir.h"

/* fe_strmap.c: a StrId -> uint32 map (dense: StrIds are small integers);
 * 0 is "absent". */
typedef struct StrMap {
	uint32_t *v;
	uint32_t cap;
} StrMap;
uint32_t fe_map_get(const StrMap *mp, StrId k);
void fe_map_set(StrMap *mp, StrId k, uint32_t v);
void fe_map_free(StrMap *mp);

/* fe_annot.c: a type annotation as the dump prints it ("f32[2, s0]",
 * "i64[]", "f32[3][1]cpu", "Sym(s0)", "Sym(s0 > 2)") onto value v of g.
 * text is at loc (one line).  Returns -1 after an error. */
int fe_annot(Module *m, Graph *g, ValId v, const char *text, size_t n,
    Loc loc);

/* fe_opname.c: op names as both frontends give them. */
typedef struct FeSpan {
	const char *p;
	uint32_t n;
} FeSpan;
/* the parts of a dotted name, torch.ops.aten.add.Tensor ->
 * "aten::add.Tensor", torch.sym_float -> "torch::sym_float",
 * operator.add -> "_operator::add", math.ceil -> "math::ceil" */
StrId fe_opname(Module *m, const FeSpan *parts, int n);
/* the same from the dotted text s[0..n); 0 when it has an empty part or
 * more than 16 */
StrId fe_opname_text(Module *m, const char *s, size_t n);

/* fe_complex.c: a complex number argument as the value of new nodes in
 * g (a 0-d complex128 tensor) */
ValId fe_complex(Module *m, Graph *g, double re, double im, Loc loc);

/* fe_sig.c: what a graph signature says about each placeholder and
 * output, and applying it to the main graph. */
typedef struct SigEntry {
	StrId name;
	uint8_t kind;   /* Role for inputs, OutKind for outputs */
	StrId target;
	Loc loc;
	uint8_t persist; /* PERSIST_* of a buffer */
} SigEntry;

typedef struct Sig {
	bool present;
	Loc loc;
	SigEntry *in, *out;
	uint32_t nin, nout, cin, cout;
	/* 2.1-2.2 layout: outputs named by maps, not in return order */
	bool bynames;
	/* the return named a value an error left undefined: the outputs
	 * are not all there, and their count is no news */
	bool lost;
} Sig;
void fe_sig_add(Sig *s, bool out, SigEntry e);
/* Roles and targets onto main's inputs, kinds onto its outputs; without
 * a signature the placeholders' prefixes (p_, b_, c_) tell.  Returns -1
 * after errors. */
int fe_sig_apply(Module *m, const Sig *s, GraphId main);
void fe_sig_free(Sig *s);

#endif
