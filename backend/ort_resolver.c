/* ort_resolver.c - the ORT writer's kernel type-string resolver: for each
 * op schema the model uses, its type-constraint names mapped to the formal
 * arguments that carry them, as ONNX Runtime's KernelTypeStrResolver
 * keeps them, so a minimal build needs no op schemas of its own.
 */
#include <stdio.h>

#include "ort_int.h"

/* ---------------------------------------------------------- resolver */

typedef struct Key {
	char name[64];
	FbsRef args[2 * OPSCHEMA_MAX_PARAMS];
	uint32_t nargs;
} Key;

typedef struct Entry {
	char id[96];
	const OpSchema *s;
} Entry;

static int
cmp_key(const void *a, const void *b)
{
	return strcmp(((const Key *)a)->name, ((const Key *)b)->name);
}

static int
cmp_entry(const void *a, const void *b)
{
	return strcmp(((const Entry *)a)->id, ((const Entry *)b)->id);
}

static FbsRef
arg_ref(Enc *e, int out, uint32_t i)
{
	fbs_table(e->b);
	fbs_u32(e->b, 1, i, 0);
	fbs_u8(e->b, 0, (uint8_t)out, 0);
	return fbs_end(e->b);
}

/* {type string: [(INPUT|OUTPUT, formal index)]} for one schema, keyed by
 * the type-constraint name, or by the parameter's own name when its type
 * is fixed (ORT's KernelTypeStrResolver::RegisterOpSchema). */
static FbsRef
resolver_entry(Enc *e, const Entry *en)
{
	Key keys[2 * OPSCHEMA_MAX_PARAMS];
	uint32_t nkeys = 0;
	for (int out = 0; out < 2; out++) {
		OpParam p[OPSCHEMA_MAX_PARAMS];
		int np = opschema_params(out ? en->s->outputs : en->s->inputs,
		    p);
		for (int i = 0; i < np; i++) {
			const char *k = opschema_is_constraint(&p[i])
			    ? p[i].type : p[i].name;
			int kl = opschema_is_constraint(&p[i])
			    ? p[i].typelen : p[i].namelen;
			char name[64];
			snprintf(name, sizeof name, "%.*s", kl, k);
			uint32_t j;
			for (j = 0; j < nkeys; j++)
				if (!strcmp(keys[j].name, name))
					break;
			if (j == nkeys) {
				memcpy(keys[j].name, name, sizeof name);
				keys[j].nargs = 0;
				nkeys++;
			}
			keys[j].args[keys[j].nargs++] =
			    arg_ref(e, out, (uint32_t)i);
		}
	}
	qsort(keys, nkeys, sizeof *keys, cmp_key);
	FbsRef refs[2 * OPSCHEMA_MAX_PARAMS];
	for (uint32_t j = 0; j < nkeys; j++) {
		FbsRef args = fbs_vec_refs(e->b, keys[j].args, keys[j].nargs);
		FbsRef k = cstr(e, keys[j].name);
		fbs_table(e->b);
		fbs_ref(e->b, 0, k);
		fbs_ref(e->b, 1, args);
		refs[j] = fbs_end(e->b);
	}
	FbsRef v = fbs_vec_refs(e->b, refs, nkeys);
	FbsRef id = cstr(e, en->id);
	fbs_table(e->b);
	fbs_ref(e->b, 0, id);
	fbs_ref(e->b, 1, v);
	return fbs_end(e->b);
}

FbsRef
ort_resolver(Enc *e)
{
	Entry *en = xcalloc(e->nops, sizeof *en);
	for (uint32_t i = 0; i < e->nops; i++) {
		/* "domain:op_type:since_version", "" for ai.onnx */
		snprintf(en[i].id, sizeof en[i].id, ":%s:%d", e->ops[i]->op,
		    e->ops[i]->since);
		en[i].s = e->ops[i];
	}
	qsort(en, e->nops, sizeof *en, cmp_entry);
	FbsRef *refs = xcalloc(e->nops, sizeof *refs);
	for (uint32_t i = 0; i < e->nops; i++)
		refs[i] = resolver_entry(e, &en[i]);
	FbsRef v = fbs_vec_refs(e->b, refs, e->nops);
	free(refs);
	free(en);
	fbs_table(e->b);
	fbs_ref(e->b, 0, v);
	return fbs_end(e->b);
}
