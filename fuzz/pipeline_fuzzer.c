/* pipeline_fuzzer.c - pipeline text (--passes=) -> steps: the parser, its
 * option values by type and its diagnostics with a caret into the text.
 * The registry holds passes named like the real ones, with options of
 * every type, linked in as a static plugin. */
#define ONNXC_PLUGIN_STATIC
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "pipeline/pipeline.h"

static onnxc_status
run(onnxc_ctx *ctx, const onnxc_host_api *host, void *user)
{
	(void)ctx;
	(void)host;
	(void)user;
	return ONNXC_OK;
}

static const onnxc_option decompose_opts[] = {
	{"keep", ONNXC_OPT_STRING, "", ""},
	{"all", ONNXC_OPT_BOOL, "false", ""},
};
static const onnxc_option fold_opts[] = {
	{"max-size", ONNXC_OPT_INT, "1024", ""},
};
static const onnxc_option opts_opts[] = {
	{"n", ONNXC_OPT_INT, "3", ""},
	{"flag", ONNXC_OPT_BOOL, "true", ""},
	{"scale", ONNXC_OPT_FLOAT, "0.5", ""},
	{"tag", ONNXC_OPT_STRING, "x", ""},
};

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	static const onnxc_pass_info passes[] = {
		{sizeof *passes, "decompose", "", decompose_opts, 2, run, NULL,
		    0, 0, 0},
		{sizeof *passes, "symbolize-shapes", "", NULL, 0, run, NULL,
		    0, 0, 0},
		{sizeof *passes, "fold", "", fold_opts, 1, run, NULL, 0, 0, 0},
		{sizeof *passes, "cse", "", NULL, 0, run, NULL, 0, 0, 0},
		{sizeof *passes, "dce", "", NULL, 0, run, NULL, 0, 0, 0},
		{sizeof *passes, "opts", "", opts_opts, 4, run, NULL, 0, 0, 0},
	};
	(void)ctx;
	for (size_t i = 0; i < sizeof passes / sizeof *passes; i++)
		if (host->register_pass(reg, &passes[i]) != ONNXC_OK)
			return ONNXC_ERROR;
	return ONNXC_OK;
}

ONNXC_PLUGIN_NAMED(fuzz, "fuzz", "1", init, NULL);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* command-line text ends at its first NUL */
	size_t n = strnlen((const char *)data, size);
	char *text = malloc(n + 1);
	if (!text)
		abort();
	memcpy(text, data, n);
	text[n] = 0;
	FzDiag d;
	Module *m = fz_module(&d, "--passes", data, size);
	PlRegistry *r = pl_registry_new(m);
	if (pl_add_static(r, &onnxc_plugin_fuzz) != 0)
		abort();
	PmPipeline p;
	int rc = pm_parse(m, r, "--passes", text, &p);
	fz_check(m, &d, rc, 0, "pm_parse");
	for (uint32_t i = 0; rc == 0 && i < p.n; i++) {
		const PmStep *st = &p.steps[i];
		if (!st->pass || st->off > n || !st->opts)
			abort();
		for (uint32_t k = 0; k < st->pass->info.noptions; k++)
			if (!st->opts[k].s)
				abort();
	}
	if (rc == 0 && p.n == 0)
		abort(); /* an accepted pipeline has a pass */
	pm_free(&p);
	pl_registry_free(r);
	fz_done(m, &d);
	free(text);
	return 0;
}
