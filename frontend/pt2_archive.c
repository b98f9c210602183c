/* pt2_archive.c - what a .pt2 archive holds: which layout, which program,
 * and its JSON documents, with diagnostics as
 * "model.pt2:ROOT/models/model.json:L:C".
 *
 * Layouts (torch/export/pt2_archive/): torch >= 2.7 writes
 * ROOT/archive_format ("pt2"), ROOT/models/NAME.json and the weights as
 * stored entries under ROOT/data/weights and ROOT/data/constants, each
 * listed with its TensorMeta in a *_config.json.  torch <= 2.6 wrote
 * serialized_exported_program.json beside torch.save pickles
 * (serialized_state_dict.pt, serialized_constants.pt).  Both programs
 * follow schema.py; majors above the one onnxc knows are refused.
 */
#include <stdlib.h>
#include <string.h>

#include "pt2_int.h"

enum { SCHEMA_MAJOR = 8 };

/* Opens entry name as the current JSON document: diagnostics about it
 * quote its text.  NULL after an error. */
const JVal *
pt2_doc(Pt2 *a, const char *name, bool required)
{
	Module *m = a->m;
	ZipEntry *e = zip_find(a->z, name);
	if (!e) {
		if (required)
			ir_error(m, (Loc){0, 0}, "the archive has no '%s'",
			    name);
		return NULL;
	}
	const unsigned char *d;
	size_t n;
	if (zip_data(a->z, e, &d, &n) < 0)
		return NULL;
	size_t fl = strlen(a->path) + strlen(name) + 2;
	char *file = arena_alloc(m->arena, fl);
	snprintf(file, fl, "%s:%s", a->path, name);
	m->file = file;
	m->src = (const char *)d;
	m->srclen = n;
	const char *err = NULL;
	Loc at;
	JVal *v = json_parse(a->ja, (const char *)d, n, 0, &err, &at);
	if (!v)
		ir_error(m, at, "not JSON: %s", err);
	return v;
}

/* ROOT/models/NAME.json entries: the one named, or the only one. */
static const char *
pick_program(Pt2 *a, const char *want)
{
	Module *m = a->m;
	size_t rl = strlen(a->root);
	char list[1024] = "";
	size_t ll = 0;
	uint32_t count = 0;
	const char *only = NULL;
	for (uint32_t i = 0; i < zip_count(a->z); i++) {
		const char *s = zip_entry(a->z, i)->name;
		size_t n = strlen(s);
		if (strncmp(s, a->root, rl) || strncmp(s + rl, "models/", 7) ||
		    n < rl + 12 || strcmp(s + n - 5, ".json") ||
		    memchr(s + rl + 7, '/', n - rl - 7))
			continue;
		int nl = (int)(n - rl - 12);
		const char *name = arena_strndup(m->arena, s + rl + 7,
		    (size_t)nl);
		if (want && !strcmp(want, name))
			return name;
		ll = str_addf(list, sizeof list, ll, "%s'%s'",
		    count ? ", " : "", name);
		count++;
		only = name;
	}
	if (want)
		ir_error(m, (Loc){0, 0}, "--program '%s': the archive has no "
		    "such program (it has %s)", want, count ? list : "none");
	else if (count == 0)
		ir_error(m, (Loc){0, 0}, "the archive has no program "
		    "(%smodels/*.json)", a->root);
	else if (count > 1)
		ir_error(m, (Loc){0, 0}, "the archive holds %u programs (%s): "
		    "choose one with --program NAME", count, list);
	return !want && count == 1 ? only : NULL;
}

/* An entry name that stays inside the archive's folder: relative, no
 * ".." component.  (zip.c refuses NUL bytes in names.) */
static bool
safe_name(const char *s)
{
	if (!*s || *s == '/' || *s == '\\')
		return false;
	for (const char *c = s; *c;) {
		size_t n = strcspn(c, "/\\");
		if (n == 2 && c[0] == '.' && c[1] == '.')
			return false;
		c += n;
		if (*c)
			c++;
	}
	return true;
}

/* The layout, checked whole before anything is read: every name safe,
 * one root holding either torch >= 2.7's ROOT/archive_format (ROOT empty
 * or one folder, every entry under it) or torch <= 2.6's
 * serialized_exported_program.json, never both, never two. */
int
pt2_layout(Pt2 *a, const char *program, const char **progentry)
{
	Module *m = a->m;
	uint32_t nfmt = 0, nold = 0;
	const char *fmt = NULL, *old = NULL;
	for (uint32_t i = 0; i < zip_count(a->z); i++) {
		const char *s = zip_entry(a->z, i)->name;
		const char *base = strrchr(s, '/');
		base = base ? base + 1 : s;
		size_t pl = (size_t)(base - s);
		if (!safe_name(s)) {
			ir_error(m, (Loc){0, 0}, "entry '%s': an absolute name "
			    "or one with '..' (a path out of the archive's "
			    "folder); refused", s);
			return -1;
		}
		if (!strcmp(base, "archive_format") &&
		    (pl == 0 || !memchr(s, '/', pl - 1))) {
			nfmt++;
			fmt = s;
		}
		if (!strcmp(base, "serialized_exported_program.json")) {
			nold++;
			old = s;
		}
	}
	if (nfmt + nold > 1) {
		ir_error(m, (Loc){0, 0}, "the archive holds %s ('%s' and "
		    "more): one program archive per file, please",
		    nfmt && nold ? "both a torch >= 2.7 and a torch <= 2.6 "
		    "layout" : "more than one archive root", fmt ? fmt : old);
		return -1;
	}
	if (fmt) {
		const char *base = strrchr(fmt, '/');
		a->root = arena_strndup(m->arena, fmt, base ?
		    (size_t)(base + 1 - fmt) : 0);
		a->v26 = false;
		size_t rl = strlen(a->root);
		for (uint32_t i = 0; rl && i < zip_count(a->z); i++) {
			const char *s = zip_entry(a->z, i)->name;
			if (strncmp(s, a->root, rl)) {
				ir_error(m, (Loc){0, 0}, "entry '%s' lies "
				    "outside the archive's root '%s'", s,
				    a->root);
				return -1;
			}
		}
	} else if (old) {
		a->root = arena_strndup(m->arena, old, strlen(old) -
		    strlen("serialized_exported_program.json"));
		a->v26 = true;
	}
	if (!a->root) {
		ir_error(m, (Loc){0, 0}, "a zip archive, but not one of "
		    "torch.export.save (no archive_format and no "
		    "serialized_exported_program.json); onnxc reads .pt2 "
		    "archives and FX dumps (print(exported_program))");
		return -1;
	}
	if (a->v26) {
		if (program && strcmp(program, "model")) {
			ir_error(m, (Loc){0, 0}, "--program '%s': archives of "
			    "torch <= 2.6 hold one program", program);
			return -1;
		}
		size_t n = strlen(a->root) + 40;
		char *e = arena_alloc(m->arena, n);
		snprintf(e, n, "%sserialized_exported_program.json", a->root);
		*progentry = e;
		a->prog = "model";
		return 0;
	}
	a->prog = pick_program(a, program);
	if (!a->prog)
		return -1;
	size_t n = strlen(a->root) + strlen(a->prog) + 16;
	char *e = arena_alloc(m->arena, n);
	snprintf(e, n, "%smodels/%s.json", a->root, a->prog);
	*progentry = e;
	return 0;
}

int
pt2_check_version(Module *m, const JVal *prog)
{
	const JVal *sv = json_get(prog, "schema_version");
	const JVal *maj = json_get(sv, "major"), *min = json_get(sv, "minor");
	if (!json_is(prog, J_OBJ)) {
		json_err(m, prog, "the program must be a JSON object");
		return -1;
	}
	if (!maj || !maj->isint) {
		json_err(m, sv ? sv : prog, "the program has no "
		    "schema_version.major: not a torch.export program");
		return -1;
	}
	if (maj->i < 0 || (min && (!min->isint || min->i < 0))) {
		json_err(m, maj->i < 0 ? maj : min, "schema version numbers "
		    "must be integers of 0 or more");
		return -1;
	}
	if (maj->i > SCHEMA_MAJOR) {
		json_err(m, maj, "schema version %lld.%lld is newer than onnxc "
		    "reads (%d.x): save the program with an older torch, or "
		    "convert its dump (print(exported_program))",
		    (long long)maj->i, min && min->isint ? (long long)min->i :
		    0LL, SCHEMA_MAJOR);
		return -1;
	}
	return 0;
}
