/* json.h - a JSON document as a tree with source locations, for the
 * programs and configs of .pt2 archives.  Strict RFC 8259 plus the NaN,
 * Infinity and -Infinity that Python's json module writes. */
#ifndef ONNXC_JSON_H
#define ONNXC_JSON_H

#include "../ir/ir.h"

typedef enum JKind { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } JKind;

typedef struct JVal JVal;
struct JVal {
	uint8_t kind;
	bool isint;       /* J_NUM written as an integer that fits int64 */
	bool b;           /* J_BOOL */
	uint32_t n;       /* J_STR: length; J_ARR/J_OBJ: number of kids */
	Loc loc;
	const char *key;  /* member name when a kid of an object */
	uint32_t klen;
	const char *s;    /* J_STR: decoded, NUL-terminated */
	JVal *kids;
	int64_t i;        /* J_NUM when isint */
	double f;         /* J_NUM */
};

/* json_parse's flags */
enum {
	/* an object may name a member twice (json_get finds the first):
	 * for readers that report repeats in their own words */
	JSON_DUPLICATES = 1,
};

/* Parses s[0..n) into a tree allocated in a; on a syntax error returns
 * NULL with *err (a static message) and *at set. */
JVal *json_parse(Arena *a, const char *s, size_t n, unsigned flags,
    const char **err, Loc *at);
/* the member named key of an object, NULL if absent or not an object */
const JVal *json_get(const JVal *obj, const char *key);
bool json_is(const JVal *v, JKind k);
/* An error at v's place (NULL: the document as a whole) in the document
 * being read, which is m->file and m->src. */
void json_err(Module *m, const JVal *v, const char *fmt, ...);

#endif
