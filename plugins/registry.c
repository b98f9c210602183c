/* registry.c - registration of passes and lowerings (init's side of the
 * ABI), option values, and which lowerings apply to an op. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"

/* ------------------------------------------------------------ options */

const char *
pl_opt_type_name(uint32_t type)
{
	switch (type) {
	case ONNXC_OPT_BOOL: return "bool";
	case ONNXC_OPT_INT: return "int";
	case ONNXC_OPT_FLOAT: return "float";
	case ONNXC_OPT_STRING: return "string";
	default: return "?";
	}
}

int
pl_opt_parse(Arena *a, uint32_t type, const char *text, size_t n,
    PlOptVal *out)
{
	char *s = arena_strndup(a, text, n), *end;
	*out = (PlOptVal){.s = s};
	switch (type) {
	case ONNXC_OPT_BOOL:
		if (!strcmp(s, "true") || !strcmp(s, "1"))
			out->i = 1;
		else if (strcmp(s, "false") && strcmp(s, "0"))
			return -1;
		out->f = (double)out->i;
		return 0;
	case ONNXC_OPT_INT: {
		errno = 0;
		long long v = strtoll(s, &end, 10);
		if (!n || errno || *end || isspace((unsigned char)s[0]))
			return -1;
		out->i = v;
		out->f = (double)v;
		return 0;
	}
	case ONNXC_OPT_FLOAT:
		errno = 0;
		out->f = strtod(s, &end);
		if (!n || errno || *end || isspace((unsigned char)s[0]))
			return -1;
		out->i = (int64_t)(out->f >= -9.2e18 && out->f <= 9.2e18
		    ? out->f : 0);
		return 0;
	case ONNXC_OPT_STRING:
		return 0;
	default:
		return -1;
	}
}

static const PlOptVal *
opt(onnxc_ctx *c, const char *name, uint32_t type)
{
	if (!c || !c->pass || !c->opts || !name)
		return NULL;
	const onnxc_pass_info *p = &c->pass->info;
	for (uint32_t i = 0; i < p->noptions; i++)
		if (!strcmp(p->options[i].name, name))
			return p->options[i].type == type ? &c->opts[i] : NULL;
	return NULL;
}

onnxc_status
h_opt_bool(onnxc_ctx *c, const char *name, int *out)
{
	const PlOptVal *v = opt(c, name, ONNXC_OPT_BOOL);
	if (!v || !out)
		return ONNXC_INVALID;
	*out = (int)v->i;
	return ONNXC_OK;
}

onnxc_status
h_opt_int(onnxc_ctx *c, const char *name, int64_t *out)
{
	const PlOptVal *v = opt(c, name, ONNXC_OPT_INT);
	if (!v || !out)
		return ONNXC_INVALID;
	*out = v->i;
	return ONNXC_OK;
}

onnxc_status
h_opt_float(onnxc_ctx *c, const char *name, double *out)
{
	const PlOptVal *v = opt(c, name, ONNXC_OPT_FLOAT);
	if (!v || !out)
		return ONNXC_INVALID;
	*out = v->f;
	return ONNXC_OK;
}

onnxc_status
h_opt_string(onnxc_ctx *c, const char *name, const char **out)
{
	const PlOptVal *v = opt(c, name, ONNXC_OPT_STRING);
	if (!v || !out)
		return ONNXC_INVALID;
	*out = v->s;
	return ONNXC_OK;
}

/* -------------------------------------------------------- registration */

static bool
kebab(const char *s)
{
	if (!pl_okname(s) || strlen(s) > 64)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		    *s == '-'))
			return false;
	return true;
}

/* Refuse a registration: reported at the plugin, and init fails. */
static onnxc_status
refuse(onnxc_registry *r, const char *fmt, const char *what)
{
	const char *who = pl_plugin_name(r, r->current - 1);
	char msg[256];
	snprintf(msg, sizeof msg, fmt, what);
	pl_diag(r->m, r->initfile, "error", (Loc){0}, "[%.64s] %s", who, msg);
	r->bad = 1;
	return ONNXC_INVALID;
}

static char *
copy(onnxc_registry *r, const char *s)
{
	return arena_strndup(r->arena, s ? s : "", s ? strlen(s) : 0);
}

onnxc_status
h_register_pass(onnxc_registry *r, const onnxc_pass_info *pass)
{
	if (!r || !r->current)
		return ONNXC_INVALID;
	size_t need = offsetof(onnxc_pass_info, user) + sizeof pass->user;
	if (!pass || pass->size < need)
		return refuse(r, "%s", "register_pass: a descriptor too small "
		    "for this ABI (set size = sizeof(onnxc_pass_info))");
	if (!kebab(pass->name))
		return refuse(r, "register_pass: pass name '%.64s' is not "
		    "kebab-case ([a-z0-9-]+)", pass->name ? pass->name : "");
	if (!pass->run)
		return refuse(r, "pass '%s' has no run function", pass->name);
	if (pass->noptions > 64 || (pass->noptions && !pass->options))
		return refuse(r, "pass '%s' has a bad option table",
		    pass->name);
	const PlPass *old = pl_find_pass(r, pass->name, strlen(pass->name));
	if (old) {
		char msg[200];
		snprintf(msg, sizeof msg, "%.64s' is already registered by "
		    "plugin '%.64s", pass->name, pl_plugin_name(r, old->plugin));
		return refuse(r, "pass '%s'", msg);
	}
	PlPass p = {.plugin = r->current - 1};
	memcpy(&p.info, pass, need);
	p.info.size = sizeof p.info;
	/* the contract of ABI 1.4; older descriptors end before it */
	if (pass->size >= offsetof(onnxc_pass_info, breaks) +
	    sizeof pass->breaks) {
		if ((pass->needs | pass->provides | pass->breaks) &
		    ~(uint32_t)ONNXC_PROP_ALL)
			return refuse(r, "pass '%s' declares properties this "
			    "onnxc does not know (see ONNXC_PROP_*)",
			    pass->name);
		p.info.needs = pass->needs;
		p.info.provides = pass->provides;
		p.info.breaks = pass->breaks;
		p.contract = true;
	}
	p.info.name = copy(r, pass->name);
	p.info.summary = copy(r, pass->summary);
	onnxc_option *opts = arena_alloc(r->arena,
	    (pass->noptions + 1) * sizeof *opts);
	p.dflt = arena_alloc(r->arena, (pass->noptions + 1) * sizeof *p.dflt);
	for (uint32_t i = 0; i < pass->noptions; i++) {
		const onnxc_option *o = &pass->options[i];
		if (!kebab(o->name) || o->type > ONNXC_OPT_STRING)
			return refuse(r, "pass '%s' has an option with a bad "
			    "name or type", pass->name);
		for (uint32_t k = 0; k < i; k++)
			if (!strcmp(opts[k].name, o->name))
				return refuse(r, "option '%s' is declared "
				    "twice", o->name);
		const char *d = o->dflt ? o->dflt
		    : o->type == ONNXC_OPT_BOOL ? "false"
		    : o->type == ONNXC_OPT_STRING ? "" : "0";
		if (pl_opt_parse(r->arena, o->type, d, strlen(d),
		    &p.dflt[i]) < 0)
			return refuse(r, "option '%s' has a default that is "
			    "not of its type", o->name);
		opts[i] = (onnxc_option){copy(r, o->name), o->type, copy(r, d),
			copy(r, o->help)};
	}
	p.info.options = opts;
	vgrow((void **)&r->passes, &r->cpasses, r->npasses + 1,
	    sizeof *r->passes);
	r->passes[r->npasses++] = p;
	return ONNXC_OK;
}

onnxc_status
h_register_lowering(onnxc_registry *r, const onnxc_lowering_info *lw)
{
	if (!r || !r->current)
		return ONNXC_INVALID;
	size_t need = offsetof(onnxc_lowering_info, user) + sizeof lw->user;
	if (!lw || lw->size < need)
		return refuse(r, "%s", "register_lowering: a descriptor too "
		    "small for this ABI (set size = "
		    "sizeof(onnxc_lowering_info))");
	if (!pl_okname(lw->target) || !lw->lower)
		return refuse(r, "%s", "register_lowering: a lowering needs a "
		    "target op and a lower function");
	if (lw->opset_min < 0 || lw->opset_max < 0 ||
	    (lw->opset_max && lw->opset_min > lw->opset_max))
		return refuse(r, "lowering of '%.200s' has a bad opset range",
		    lw->target);
	PlLowering l = {.plugin = r->current - 1};
	memcpy(&l.info, lw, need);
	l.info.size = sizeof l.info;
	l.info.target = copy(r, lw->target);
	l.info.domain = copy(r, lw->domain);
	vgrow((void **)&r->lowerings, &r->clowerings, r->nlowerings + 1,
	    sizeof *r->lowerings);
	r->lowerings[r->nlowerings++] = l;
	return ONNXC_OK;
}

bool
pl_lowering_in_range(const PlLowering *l, int opset)
{
	return (!l->info.opset_min || opset >= l->info.opset_min) &&
	    (!l->info.opset_max || opset <= l->info.opset_max);
}

bool
pl_lowering_applies(const PlRegistry *r, const char *op, int opset)
{
	for (uint32_t i = 0; r && i < r->nlowerings; i++)
		if (!strcmp(r->lowerings[i].info.target, op) &&
		    pl_lowering_in_range(&r->lowerings[i], opset))
			return true;
	return false;
}

int
h_has_lowering(onnxc_ctx *c, const char *op)
{
	if (!c || !pl_okname(op))
		return 0;
	StrId s = ir_intern(c->m, op);
	vgrow((void **)&c->haslw, &c->chaslw, s + 1, 1);
	if (!c->haslw[s])
		c->haslw[s] = pl_lowering_applies(c->reg, op, c->opset) ||
		    (c->reg && c->reg->has_rule && c->reg->has_rule(c->m, s))
		    ? 1 : 2;
	return c->haslw[s] == 1;
}
