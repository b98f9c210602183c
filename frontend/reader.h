/* reader.h - the input formats onnxc reads, as one table the driver walks.
 * Each format is an entry that knows its input by its first bytes, reads
 * it into FX graphs of a Module, binds the weights it carries and lets go
 * of what it holds; nothing after it knows which one ran.  A weights file
 * (--weights, safetensors) is bound over whatever the input brought. */
#ifndef ONNXC_READER_H
#define ONNXC_READER_H

#include "../ir/ir.h"

/* An input, mapped by the caller for as long as its reader's state lives
 * (weights point into it). */
typedef struct FeInput {
	const char *path;          /* as given: diagnostics name it */
	const unsigned char *buf;  /* its bytes, also m->src */
	size_t len;
	const char *program;       /* --program: which of several; NULL */
} FeInput;

typedef struct FeReader {
	const char *name;   /* the format, plural: ".pt2 archives" */
	const char *what;   /* what the report calls such an input */
	bool programs;      /* it can hold several programs (--program) */
	/* Is buf[0..len) (named path) in this format? */
	bool (*sniff)(const char *path, const unsigned char *buf, size_t len);
	/* The input into FX graphs of m, the main one *out; what the reader
	 * holds on to in *state.  -1 after reporting errors. */
	int (*read)(Module *m, const FeInput *in, void **state, GraphId *out);
	/* The weights the input holds onto g's weight inputs; NULL for a
	 * format that holds none.  -1 after reporting errors. */
	int (*bind)(void *state, GraphId g);
	void (*close)(void *state);
} FeReader;

/* The formats, in the order they are tried: the FX dump, last, takes any
 * input the others did not (its parser then says what is wrong where). */
extern const FeReader *const fe_readers[];
extern const uint32_t fe_nreaders;

/* The first reader of table[0..n) that takes the input; NULL after an
 * error naming the formats of the table. */
const FeReader *fe_pick(Module *m, const FeReader *const *table, uint32_t n,
    const FeInput *in);

/* An input being read: its reader, the reader's state and the weights
 * file. */
typedef struct FeSource FeSource;
/* rd reads the input into *out, which is verified, then binds its own
 * weights.  NULL after reporting errors. */
FeSource *fe_open(Module *m, const FeReader *rd, const FeInput *in,
    GraphId *out);
/* The safetensors file path bound to g: over the input's own weights
 * where it has them (those the file lacks stay), else all of them.  -1
 * after reporting errors. */
int fe_weights(FeSource *s, const char *path, GraphId g);
/* The weights file's descriptor and mapping; -1 when there is none. */
int fe_weights_fd(const FeSource *s, const void **map, size_t *len);
void fe_close(FeSource *s);

/* "a FIFO", "a socket", ...: what a non-regular file of mode is. */
const char *fe_file_kind(unsigned mode);

#endif
