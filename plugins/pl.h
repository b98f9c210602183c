/* pl.h - the plugin host: the registry of passes and lowerings
 * (registry.c), loading plugin modules into it (loader.c), and the host
 * function table plugins call (host*.c), implemented over ir.h.  The one
 * header plugins/ publishes to the rest of onnxc: it depends on ir/ and
 * the ABI only, and nothing here knows the lowering pass's internals.
 *
 * Plugins see only include/onnxc/plugin.h.  Everything here is the host's
 * side of that contract: a pass or lowering runs with an onnxc_ctx that
 * names the module, the graph being worked on and the options of the
 * pass; handles a plugin passes in are checked before use. */
#ifndef ONNXC_PL_H
#define ONNXC_PL_H

#include "../include/onnxc/plugin.h"
#include "../ir/ir.h"

/* A plugin: a loaded module, or one linked into onnxc (path NULL). */
typedef struct PlPlugin {
	const onnxc_plugin_info *info;
	char *path;       /* as loaded; NULL when built in */
	void *handle;     /* from dlopen; NULL when built in */
} PlPlugin;

/* A parsed option value; all three fields are set for every type. */
typedef struct PlOptVal {
	int64_t i;        /* int, bool */
	double f;         /* float */
	const char *s;    /* the text as given (string options) */
} PlOptVal;

typedef struct PlPass {
	onnxc_pass_info info;  /* a copy; strings owned by the registry */
	PlOptVal *dflt;        /* the defaults, parsed, one per option */
	uint32_t plugin;       /* index into PlRegistry.plugins */
	bool contract;         /* info.needs/provides/breaks were given
	                        * (ABI 1.4); else the pass is not checked */
} PlPass;

typedef struct PlLowering {
	onnxc_lowering_info info;
	uint32_t plugin;
} PlLowering;

/* Where plugins register.  Passes and lowerings keep registration order:
 * plugin lowerings are tried in that order, before the built-in rules. */
struct onnxc_registry {
	Module *m;          /* for diagnostics */
	Arena *arena;       /* copies of names, summaries, options */
	PlPlugin *plugins;
	uint32_t nplugins, cplugins;
	PlPass *passes;
	uint32_t npasses, cpasses;
	PlLowering *lowerings;
	uint32_t nlowerings, clowerings;
	uint32_t current;   /* plugin running init, + 1; 0 outside init */
	const char *initfile; /* its path as shown in reports during init */
	int bad;            /* a registration was refused during init */
	bool searching;     /* loading from the search path: a plugin whose
	                     * name is loaded already is skipped */
	/* whether onnxc has a lowering rule of its own for an op: set by the
	 * lower pass's module when it registers (lower/lower.c) */
	bool (*has_rule)(Module *m, StrId op);
	const char **dirs;  /* folders searched, for messages */
	uint32_t ndirs, cdirs;
};
typedef struct onnxc_registry PlRegistry;

/* The FX node a lowering pass offers to plugin lowerings, and how ONNX
 * nodes are made for it: the pass fills one in per node (pl_lower_node),
 * so the host's lower_* functions need nothing of the pass but this. */
typedef struct PlLowerOps {
	NodeId (*emit)(void *self, const char *domain, const char *op,
	    int nin, const ValId *in, int nout);
	void (*settype)(void *self, ValId v, DType dt);
	ValId (*constant)(void *self, DType dt, int rank, const int64_t *dims,
	    const void *data);
	void (*bind)(void *self, int k, ValId v);   /* FX output k is v */
} PlLowerOps;

typedef struct PlLowerSite {
	const Graph *src;   /* the FX graph */
	NodeId node;        /* the FX node */
	ValId *map;         /* FX value -> ONNX value (0: none yet) */
	Graph *dst;         /* the ONNX graph being built */
	GraphId dstid;
	int opset;
	const PlLowerOps *ops;
	void *self;         /* the lowering pass's state, for ops */
} PlLowerSite;

/* One compilation as a plugin sees it.  Host-internal: plugins get only
 * the pointer. */
struct onnxc_ctx {
	Module *m;
	PlRegistry *reg;
	GraphId graph;        /* host->graph(ctx) */
	int opset;
	bool training;
	const char *who;      /* plugin whose code runs, shown in reports */
	const PlPass *pass;   /* the pass running, for opt_* */
	const PlOptVal *opts; /* its option values, one per option */
	/* node_push_arg is for the newest node made by node_new */
	GraphId newest_g;
	NodeId newest_n;
	/* graphs the running pass changed: base[g] is 1 + the node count
	 * before its first change, 0 when untouched */
	uint32_t *base;
	uint32_t cbase;
	/* use counts, kept per graph while a pass runs */
	uint32_t **uses;
	uint32_t *nuses;
	uint32_t cuses;
	/* names taken in graph named_g, per StrId: values [1, named_upto)
	 * are marked (values are only ever added, and a stale mark just
	 * costs a suffix) */
	uint8_t *named;
	uint32_t cnamed;
	GraphId named_g;
	ValId named_upto;
	/* constant inputs of graph named_g by content (open addressing,
	 * ValIds, 0 free), so equal folded constants are one initializer */
	ValId *consts;
	uint32_t cconsts, nconsts;
	uint32_t consts_upto;  /* inputs [0, consts_upto) are indexed */
	/* per op StrId, 0 unknown, 1 yes, 2 no: has_lowering's answers,
	 * and whether a plugin lowering for this opset targets the op (so
	 * offering a node no plugin wants costs no scan of them all) */
	uint8_t *haslw;
	uint32_t chaslw;
	uint8_t *plw;
	uint32_t cplw;
	/* inside a lowering: the node offered, what the call emitted
	 * from, and how many outputs it bound */
	PlLowerSite *site;
	NodeId lower_base;
	uint32_t nbound;
	/* the plugin code pl_invoke ran last reported an error (through the
	 * host, or a built-in module through ir_error) */
	bool reported;
};

/* host.c: the host table and contexts.  Code outside plugins/ never
 * calls plugin code itself: pl_invoke is the one place that does (the
 * unit tests call pl_host's functions directly). */
extern const onnxc_host_api pl_host;
/* A plugin entry point: exactly one of the three is set. */
typedef struct PlEntry {
	onnxc_status (*run)(onnxc_ctx *, const onnxc_host_api *, void *);
	void *user;                       /* run's last argument */
	onnxc_status (*init)(onnxc_ctx *, const onnxc_host_api *,
	    onnxc_registry *);
	void (*fini)(void);
} PlEntry;
/* Calls e (a pass, a lowering, init or fini of plugin `plugin`) with c,
 * which names the plugin in its diagnostics for the call. */
onnxc_status pl_invoke(onnxc_ctx *c, uint32_t plugin, PlEntry e);
void pl_ctx_init(onnxc_ctx *c, Module *m, PlRegistry *r);
void pl_ctx_fini(onnxc_ctx *c);
/* forget use counts and the newest node (between passes / lowerings) */
void pl_ctx_reset(onnxc_ctx *c);
/* an option value of type ONNXC_OPT_* from text[0..n); -1 if malformed.
 * String values point into an arena copy. */
int pl_opt_parse(Arena *a, uint32_t type, const char *text, size_t n,
    PlOptVal *out);
const char *pl_opt_type_name(uint32_t type);

/* registry.c: whether lowering l applies at opset (0 leaves a bound
 * open), and whether some plugin lowering of op does */
bool pl_lowering_in_range(const PlLowering *l, int opset);
bool pl_lowering_applies(const PlRegistry *r, const char *op, int opset);

/* host_lower.c: offer the node of s to the plugin lowerings of its op,
 * in registration order, until one lowers it: 0 when one did, 1 when all
 * declined (or none applies), -1 on an error, which names the plugin. */
int pl_lower_node(onnxc_ctx *c, PlLowerSite *s);

/* loader.c: the registry and plugin modules */
PlRegistry *pl_registry_new(Module *m);
/* runs fini of every plugin in reverse load order, then unloads them */
void pl_registry_free(PlRegistry *r);
/* a plugin linked into onnxc (descriptor built with ONNXC_PLUGIN_STATIC) */
int pl_add_static(PlRegistry *r, const onnxc_plugin_info *info);
/* a plugin module by path; 0, or -1 with a diagnostic naming it */
int pl_load(PlRegistry *r, const char *path);
/* every *.so in dir, in name order; a missing dir is skipped */
int pl_load_dir(PlRegistry *r, const char *dir);
/* the folders of ONNXC_PLUGIN_PATH, then <exe dir>/plugins (the build
 * tree) and <exe dir>/../lib/onnxc/plugins/abi<MAJOR> (an install) */
int pl_load_search_path(PlRegistry *r, const char *exe);
const PlPass *pl_find_pass(const PlRegistry *r, const char *name, size_t n);
/* where a plugin came from: its path, or "built-in" */
const char *pl_where(const PlRegistry *r, uint32_t plugin);
const char *pl_plugin_name(const PlRegistry *r, uint32_t plugin);

/* Built-in plugins, linked in (lower/lower.c). */
extern const onnxc_plugin_info onnxc_plugin_lower;

#endif
