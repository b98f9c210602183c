/* lower_fuzzer.c - dump text -> IR -> the passes of an -O preset (the
 * built-in pass modules linked in, fuzz/CMakeLists.txt) -> lower, with the
 * argument and shape checker -> ONNX bytes in memory.  Every stage keeps
 * the contract of fuzz.h; the graphs between them must verify.  The
 * preset and the opset come from the input's size, so every seed runs
 * under several. */
#include <stdlib.h>

#include "backend/onnx.h"
#include "frontend/fx.h"
#include "fuzz.h"
#include "pipeline/pipeline.h"

extern const onnxc_plugin_info onnxc_plugin_default; /* decompose */
extern const onnxc_plugin_info onnxc_plugin_symbolize;
extern const onnxc_plugin_info onnxc_plugin_fold;
extern const onnxc_plugin_info onnxc_plugin_cse;
extern const onnxc_plugin_info onnxc_plugin_dce;
extern const onnxc_plugin_info onnxc_plugin_inline;
extern const onnxc_plugin_info onnxc_plugin_functionalize;
extern const onnxc_plugin_info onnxc_plugin_random;
extern const onnxc_plugin_info onnxc_plugin_simplify;
extern const onnxc_plugin_info onnxc_plugin_convbn;
extern const onnxc_plugin_info onnxc_plugin_activations;
extern const onnxc_plugin_info onnxc_plugin_lift;
extern const onnxc_plugin_info onnxc_plugin_prune;
extern const onnxc_plugin_info onnxc_plugin_reshapes;
extern const onnxc_plugin_info onnxc_plugin_scales;
extern const onnxc_plugin_info onnxc_plugin_matmuls;
extern const onnxc_plugin_info onnxc_plugin_einsum;
extern const onnxc_plugin_info onnxc_plugin_layout;
extern const onnxc_plugin_info onnxc_plugin_pool;
extern const onnxc_plugin_info onnxc_plugin_neutral;
extern const onnxc_plugin_info onnxc_plugin_templates;
extern const onnxc_plugin_info onnxc_plugin_retype;

static PlRegistry *
registry(Module *m)
{
	const onnxc_plugin_info *mods[] = {
		&onnxc_plugin_lower, &onnxc_plugin_default,
		&onnxc_plugin_symbolize, &onnxc_plugin_fold, &onnxc_plugin_cse,
		&onnxc_plugin_dce, &onnxc_plugin_inline,
		&onnxc_plugin_functionalize, &onnxc_plugin_random,
		&onnxc_plugin_simplify, &onnxc_plugin_convbn,
		&onnxc_plugin_activations, &onnxc_plugin_lift,
		&onnxc_plugin_prune, &onnxc_plugin_reshapes,
		&onnxc_plugin_scales, &onnxc_plugin_matmuls,
		&onnxc_plugin_einsum,
		&onnxc_plugin_layout, &onnxc_plugin_pool,
		&onnxc_plugin_neutral, &onnxc_plugin_templates,
		&onnxc_plugin_retype,
	};
	PlRegistry *r = pl_registry_new(m);
	for (size_t i = 0; i < sizeof mods / sizeof *mods; i++)
		if (pl_add_static(r, mods[i]) != 0)
			abort(); /* ours: they always register */
	return r;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FzDiag d;
	Module *m = fz_module(&d, "fuzz.txt", data, size);
	PlRegistry *r = registry(m);
	int level = (int)(size % 3), opset = 17 + (int)(size / 3 % 7);
	PmPipeline p = {0};
	PmTarget t = {.opset = opset};
	char text[PM_PRESET_MAX];
	if (pm_parse(m, r, "-O", pm_preset(level, &t, text, sizeof text),
	    &p) != 0)
		abort(); /* the presets are ours */
	GraphId fx = 0, g = 0;
	int rc = fx_parse(m, &fx);
	fz_check(m, &d, rc, 0, "fx_parse");
	if (rc == 0) {
		rc = ir_verify(m, fx);
		fz_check(m, &d, rc, 0, "ir_verify");
	}
	if (rc == 0) {
		g = fx;
		rc = pm_run(m, r, &p, &(PmRun){.opset = opset,
		    .verify_each = true}, &g);
		fz_check(m, &d, rc, 0, "pm_run");
		if (rc == 0 && g == fx)
			abort(); /* every preset lowers */
	}
	if (rc == 0) {
		uint8_t *buf = NULL;
		size_t len = 0;
		rc = onnx_encode(m, g, &(BeOptions){.opset = opset}, &buf,
		    &len);
		fz_check(m, &d, rc, 0, "onnx_encode");
		if (rc == 0 && !len)
			abort();
		free(buf);
	}
	pm_free(&p);
	pl_registry_free(r);
	fz_done(m, &d);
	return 0;
}
