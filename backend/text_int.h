/* text_int.h - the text writer's own header, for backend/text*.c only:
 * its state and how it spells things.
 *   text.c      what is written: the model, graphs, nodes, initializers
 *   text_lex.c  how: the output buffer, names, numbers, tensor values
 */
#ifndef ONNXC_TEXT_INT_H
#define ONNXC_TEXT_INT_H

#include "backend.h"

#define INDENT 3

typedef struct Txt {
	Module *m;
	const BeOptions *o;
	BeNames names;       /* node names taken, as the ONNX writer takes them */
	BeInit *inits;       /* every initializer, in the ONNX writer's order */
	uint32_t ninits, cinits, next;
	StrId *domains;      /* non-default domains the nodes use */
	uint32_t ndomains, cdomains;
	uint64_t inline_bytes; /* tensor attributes' bytes */
	GraphId gid;         /* the graph written */
	const char *location; /* the data file, as initializers name it */
	BeOut *out;
	int err;             /* the first write error (an errno value) */
	size_t n;
	char buf[1 << 16];
} Txt;

/* text_lex.c */
void tx_flush(Txt *t);
void tx_put(Txt *t, const char *s, size_t n);
void tx_puts(Txt *t, const char *s);
void tx_putf(Txt *t, const char *f, ...);
void tx_indent(Txt *t, int depth);
bool tx_is_ident(const char *s);
/* a type name, or a word read as a type or a float where a name stands */
bool tx_is_reserved(const char *s);
/* a string literal, with \\ and \" escaped */
void tx_quoted(Txt *t, const char *s);
/* a name: bare where the parser reads it back as one, else quoted */
void tx_name(Txt *t, const char *s);
/* a number that reads back as the same float (single) or double; with
 * as_float, one the parser reads as a float */
void tx_number(Txt *t, double v, bool single, bool as_float);
/* "TYPE[dims]" of a tensor; rank 0 is the bare type */
void tx_tensor_type(Txt *t, const Tensor *x);
/* its values, "{v, v, ...}", 16 a line */
void tx_values(Txt *t, const Tensor *x, int depth);
/* the syntax's name of each element type */
extern const char *const tx_type_names[DT_COUNT];

#endif
