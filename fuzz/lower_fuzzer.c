/* lower_fuzzer.c - dump text -> IR -> the passes of an -O preset -> lower,
 * with the argument and shape checker -> ONNX bytes in memory.  Every
 * stage keeps the contract of fuzz.h; the graphs between them must
 * verify.  The preset and the opset come from the input's size, so every
 * seed runs under several.  The built-in pass modules are loaded once
 * from this build's plugin folder (ONNXC_FUZZ_PLUGINS), as onnxc does. */
#include <stdlib.h>

#include "backend/onnx.h"
#include "frontend/fx.h"
#include "fuzz.h"
#include "passes/pipeline.h"

static PlRegistry *
registry(Module *m)
{
	/* a first registry that is never freed keeps the modules mapped:
	 * the one of each input then loads them without mapping them anew */
	static PlRegistry *keep;
	if (!keep) {
		keep = pl_registry_new(ir_module_new());
		if (pl_load_dir(keep, ONNXC_FUZZ_PLUGINS) != 0)
			abort();
	}
	PlRegistry *r = pl_registry_new(m);
	if (pl_add_static(r, &onnxc_plugin_lower) != 0 ||
	    pl_load_dir(r, ONNXC_FUZZ_PLUGINS) != 0 ||
	    pm_check_preset(m, r, 2) != 0) {
		fprintf(stderr, "fuzz: the pass modules of %s do not load\n",
		    ONNXC_FUZZ_PLUGINS);
		abort();
	}
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
	if (pm_parse(m, r, "-O", pm_preset(level), &p) != 0)
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
		rc = onnx_encode(m, g, &(OnnxOptions){.opset = opset}, &buf,
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
