/* opschema.h - the ONNX operator schemas onnxc emits, as data.
 *
 * One row per (op, since_version) of the default domain, for the
 * versions that opsets 17 to 23 select: formal inputs and outputs (name,
 * type string, single/optional/variadic) and attributes (kind, default).
 * The .ort writer needs them for since_version, input_arg_counts, default
 * attributes and the kernel type-string resolver; opschema_check uses
 * them to check a lowered graph.
 *
 * Text forms in a row, space separated:
 *   params:  name:TYPE, with a trailing '?' (optional) or '*' (variadic);
 *            TYPE is a type-constraint name (T, T1, Tind) or a fixed type
 *            written with parentheses (tensor(int64))
 *   attrs:   name:KIND or name:KIND=DEFAULT; KIND is i f s (int, float,
 *            string), is fs ss (lists), t (tensor), g (graph)
 */
#ifndef ONNXC_OPSCHEMA_H
#define ONNXC_OPSCHEMA_H

#include "../ir/ir.h"

#define OPSCHEMA_MIN_OPSET 17
#define OPSCHEMA_MAX_OPSET 23
#define OPSCHEMA_MAX_PARAMS 16

typedef struct OpSchema {
	const char *op;
	int since;
	const char *inputs;
	const char *outputs;
	const char *attrs;
} OpSchema;

typedef enum OpOption {
	OPT_SINGLE,
	OPT_OPTIONAL,
	OPT_VARIADIC
} OpOption;

/* A formal parameter, pointing into the row's text. */
typedef struct OpParam {
	const char *name, *type;
	int namelen, typelen;
	OpOption opt;
} OpParam;

typedef enum OpAttrKind {
	OAK_INT, OAK_FLOAT, OAK_STRING, OAK_INTS, OAK_FLOATS, OAK_STRINGS,
	OAK_TENSOR, OAK_GRAPH
} OpAttrKind;

typedef struct OpAttr {
	const char *name;
	int namelen;
	OpAttrKind kind;
	bool has_default;   /* scalar kinds only */
	int64_t i;
	double f;
	const char *s;      /* OAK_STRING default, slen bytes */
	int slen;
} OpAttr;

/* The schema op_type has in opset (17..23) of domain ("" or "ai.onnx");
 * NULL if the table does not know it. */
const OpSchema *opschema_find(const char *domain, const char *op,
    int opset);
/* The formal parameters of a params text (a row's inputs or outputs) into
 * out[0..OPSCHEMA_MAX_PARAMS); returns their count. */
int opschema_params(const char *text, OpParam *out);
/* The attributes of a row into out[0..OPSCHEMA_MAX_PARAMS); their count. */
int opschema_attrs(const OpSchema *s, OpAttr *out);
/* Whether a parameter's type is a type-constraint name. */
bool opschema_is_constraint(const OpParam *p);
/* How many actual inputs go to each formal input (ORT's input_arg_counts):
 * a present single/optional slot counts 1 (even when empty), a variadic
 * last one takes the rest.  counts has OPSCHEMA_MAX_PARAMS room; returns
 * the number of formal inputs, or -1 if nin does not fit the schema. */
int opschema_arg_counts(const OpSchema *s, uint32_t nin, int32_t *counts);

/* Every row, for tests. */
const OpSchema *opschema_rows(uint32_t *n);

/* Check every D_ONNX node of graph g against the schemas of opset: the op
 * is known, input and output counts fit, attributes are the schema's and
 * of its kind.  Reports each mismatch as an error; returns 0 or -1. */
int opschema_check(Module *m, GraphId g, int opset);

#endif
