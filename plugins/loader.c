/* loader.c - plugin modules: dlopen, the ABI check, init and the registry.
 *
 * The descriptor's ABI numbers are read before any plugin code runs
 * (they are data); a module built for another major, or a newer minor,
 * is refused without calling it.  Modules stay loaded until the registry
 * is freed: passes and lowerings point into them.  Diagnostics about a
 * module are reported with its path in place of the input file's name. */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pl.h"

PlRegistry *
pl_registry_new(Module *m)
{
	PlRegistry *r = xrealloc(NULL, sizeof *r);
	memset(r, 0, sizeof *r);
	r->m = m;
	r->arena = arena_new();
	return r;
}

void
pl_registry_free(PlRegistry *r)
{
	if (!r)
		return;
	onnxc_ctx c;
	pl_ctx_init(&c, r->m, r);
	for (uint32_t i = r->nplugins; i-- > 0;) {
		PlPlugin *p = &r->plugins[i];
		if (p->info->fini)
			pl_invoke(&c, i, (PlEntry){.fini = p->info->fini});
		if (p->handle)
			dlclose(p->handle);
		free(p->path);
	}
	pl_ctx_fini(&c);
	free(r->plugins);
	free(r->passes);
	free(r->lowerings);
	free(r->dirs);
	arena_free(r->arena);
	free(r);
}

const char *
pl_where(const PlRegistry *r, uint32_t plugin)
{
	if (plugin >= r->nplugins)
		return "?";
	return r->plugins[plugin].path ? r->plugins[plugin].path : "built-in";
}

const char *
pl_plugin_name(const PlRegistry *r, uint32_t plugin)
{
	return plugin < r->nplugins ? r->plugins[plugin].info->name : "?";
}

const PlPass *
pl_find_pass(const PlRegistry *r, const char *name, size_t n)
{
	for (uint32_t i = 0; i < r->npasses; i++) {
		const char *s = r->passes[i].info.name;
		if (strlen(s) == n && memcmp(s, name, n) == 0)
			return &r->passes[i];
	}
	return NULL;
}

/* An error about the module at path (its path shown as the file). */
static int
fail(PlRegistry *r, const char *path, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ir_vdiag_in(r->m, &(DiagSrc){path, NULL, 0}, "error", (Loc){0}, fmt,
	    ap);
	va_end(ap);
	return -1;
}

/* Drop what plugin k registered: its entries are the last ones. */
static void
unregister(PlRegistry *r, uint32_t k)
{
	while (r->npasses && r->passes[r->npasses - 1].plugin == k)
		r->npasses--;
	while (r->nlowerings && r->lowerings[r->nlowerings - 1].plugin == k)
		r->nlowerings--;
}

/* Whether the symbol at p can be a descriptor: data (not code), aligned
 * and large enough for the ABI numbers.  Reading a function's bytes as
 * one would be a misaligned read of code. */
static bool
is_descriptor(const void *p)
{
	if ((uintptr_t)p % _Alignof(onnxc_plugin_info))
		return false;
	Dl_info di;
	const ElfW(Sym) *sym = NULL;
	if (!dladdr1(p, &di, (void **)&sym, RTLD_DL_SYMENT) || !sym)
		return true; /* no symbol table entry: alignment is all */
	return ELF64_ST_TYPE(sym->st_info) == STT_OBJECT &&
	    sym->st_size >= offsetof(onnxc_plugin_info, name);
}

/* Check the descriptor, then run init.  path and handle are NULL for a
 * plugin linked in; on failure the handle is closed. */
static int
add(PlRegistry *r, const onnxc_plugin_info *info, char *path, void *handle)
{
	const char *shown = path ? path : "onnxc";
	if (info->abi_major != ONNXC_PLUGIN_ABI_MAJOR ||
	    info->abi_minor > ONNXC_PLUGIN_ABI_MINOR) {
		fail(r, shown, "plugin built for plugin ABI %u.%u; this onnxc "
		    "runs ABI %d.%d plugins (rebuild it against this onnxc's "
		    "onnxc/plugin.h)", info->abi_major, info->abi_minor,
		    ONNXC_PLUGIN_ABI_MAJOR, ONNXC_PLUGIN_ABI_MINOR);
		goto bad;
	}
	if (!info->name || !*info->name || !info->init) {
		fail(r, shown, "the plugin's descriptor has no name or no init "
		    "function");
		goto bad;
	}
	for (uint32_t i = 0; i < r->nplugins; i++) {
		if (strcmp(r->plugins[i].info->name, info->name))
			continue;
		if (r->searching) {
			/* the first of a name wins: --load-plugin and earlier
			 * folders override later ones */
			if (handle)
				dlclose(handle);
			free(path);
			return 0;
		}
		fail(r, shown, "plugin '%.64s' is already loaded from %s",
		    info->name, pl_where(r, i));
		goto bad;
	}
	vgrow((void **)&r->plugins, &r->cplugins, r->nplugins + 1,
	    sizeof *r->plugins);
	uint32_t k = r->nplugins++;
	r->plugins[k] = (PlPlugin){.info = info, .path = path,
		.handle = handle};

	Module *m = r->m;
	onnxc_ctx c;
	pl_ctx_init(&c, m, r);
	r->initfile = shown;
	r->current = k + 1;
	r->bad = 0;
	onnxc_status st = pl_invoke(&c, k, (PlEntry){.init = info->init});
	r->current = 0;
	r->initfile = NULL;
	pl_ctx_fini(&c);
	if (st == ONNXC_OK && !r->bad && !c.reported)
		return 0;
	fail(r, shown, "plugin '%.64s' failed to initialise (status %d)",
	    info->name, (int)st);
	unregister(r, k);
	r->nplugins--;
bad:
	if (handle)
		dlclose(handle);
	free(path);
	return -1;
}

int
pl_add_static(PlRegistry *r, const onnxc_plugin_info *info)
{
	return add(r, info, NULL, NULL);
}

int
pl_load(PlRegistry *r, const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return fail(r, path, "cannot load plugin: %s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return fail(r, path, "cannot load plugin: not a regular file");
	/* an absolute path: dlopen searches the library path for a bare
	 * name, which is not what the user asked for */
	char *real = realpath(path, NULL);
	if (!real)
		return fail(r, path, "cannot load plugin: %s", strerror(errno));
	for (uint32_t i = 0; i < r->nplugins; i++)
		if (r->plugins[i].path && !strcmp(r->plugins[i].path, real)) {
			free(real);
			return 0;
		}
	dlerror();
	void *h = dlopen(real, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *why = dlerror();
		fail(r, path, "not a loadable plugin module: %s",
		    why ? why : "dlopen failed");
		free(real);
		return -1;
	}
	const onnxc_plugin_info *info = dlsym(h, ONNXC_PLUGIN_SYMBOL);
	if (info && !is_descriptor(info)) {
		fail(r, path, "not an onnxc plugin: its '%s' is not a "
		    "descriptor (a function, or data of another type; declare "
		    "it with ONNXC_PLUGIN)", ONNXC_PLUGIN_SYMBOL);
		dlclose(h);
		free(real);
		return -1;
	}
	if (!info) {
		fail(r, path, "not an onnxc plugin: it exports no '%s' "
		    "descriptor (declare it with ONNXC_PLUGIN)",
		    ONNXC_PLUGIN_SYMBOL);
		dlclose(h);
		free(real);
		return -1;
	}
	return add(r, info, real, h);
}

static int
cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
pl_load_dir(PlRegistry *r, const char *dir)
{
	vgrow((void **)&r->dirs, &r->cdirs, r->ndirs + 1, sizeof *r->dirs);
	r->dirs[r->ndirs++] = arena_strndup(r->arena, dir, strlen(dir));
	DIR *d = opendir(dir);
	if (!d)
		return 0; /* a folder that is not there holds no plugins */
	char **names = NULL;
	uint32_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 4 || strcmp(e->d_name + len - 3, ".so"))
			continue;
		vgrow((void **)&names, &cap, n + 1, sizeof *names);
		names[n] = xrealloc(NULL, strlen(dir) + len + 2);
		sprintf(names[n++], "%s/%s", dir, e->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, cmpstr);
	int rc = 0;
	bool was = r->searching;
	r->searching = true;
	for (uint32_t i = 0; i < n; i++) {
		if (pl_load(r, names[i]) < 0)
			rc = -1;
		free(names[i]);
	}
	r->searching = was;
	free(names);
	return rc;
}

int
pl_load_search_path(PlRegistry *r, const char *exe)
{
	int rc = 0;
	const char *env = getenv("ONNXC_PLUGIN_PATH");
	while (env && *env) {
		const char *colon = strchr(env, ':');
		size_t n = colon ? (size_t)(colon - env) : strlen(env);
		if (n) {
			char *dir = arena_strndup(r->arena, env, n);
			if (pl_load_dir(r, dir) < 0)
				rc = -1;
		}
		env = colon ? colon + 1 : env + n;
	}
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0) {
		self[n] = 0;
	} else if (!exe || !realpath(exe, self)) {
		return rc;
	}
	char *slash = strrchr(self, '/');
	if (!slash)
		return rc;
	*slash = 0; /* the folder of the executable */
	char dir[PATH_MAX + 64];
	snprintf(dir, sizeof dir, "%s/plugins", self);
	if (pl_load_dir(r, dir) < 0)
		rc = -1;
	slash = strrchr(self, '/'); /* its parent: the install prefix */
	if (slash)
		*slash = 0;
	snprintf(dir, sizeof dir, "%s/lib/onnxc/plugins/abi%d", self,
	    ONNXC_PLUGIN_ABI_MAJOR);
	if (pl_load_dir(r, dir) < 0)
		rc = -1;
	return rc;
}
