/* options.c - pass "opts" with one option of each type; it reports the
 * values it was given as a note, and fails when n is negative. */
#include <onnxc/plugin.h>

static const onnxc_option opts[] = {
	{"n", ONNXC_OPT_INT, "3", "a count"},
	{"flag", ONNXC_OPT_BOOL, "false", ""},
	{"scale", ONNXC_OPT_FLOAT, "0.5", ""},
	{"tag", ONNXC_OPT_STRING, "none", ""},
};

static onnxc_status
run(onnxc_ctx *ctx, const onnxc_host_api *host, void *user)
{
	int64_t n;
	int flag;
	double scale;
	const char *tag;
	(void)user;
	if (host->opt_int(ctx, "n", &n) || host->opt_bool(ctx, "flag", &flag) ||
	    host->opt_float(ctx, "scale", &scale) ||
	    host->opt_string(ctx, "tag", &tag))
		return ONNXC_ERROR;
	/* asking for an option under the wrong type is refused */
	if (host->opt_bool(ctx, "n", &flag) != ONNXC_INVALID ||
	    host->opt_int(ctx, "missing", &n) != ONNXC_INVALID)
		return ONNXC_ERROR;
	host->report(ctx, ONNXC_SEV_NOTE, 0, 0, "n=%lld flag=%d scale=%g "
	    "tag=<%s>", (long long)n, flag, scale, tag);
	if (n < 0) {
		host->report(ctx, ONNXC_SEV_ERROR, 0, 0, "n must not be "
		    "negative");
		return ONNXC_ERROR;
	}
	return ONNXC_OK;
}

static onnxc_status
init(onnxc_ctx *ctx, const onnxc_host_api *host, onnxc_registry *reg)
{
	static const onnxc_pass_info pass = {
		sizeof pass, "opts", "reports its options", opts,
		sizeof opts / sizeof *opts, run, NULL, 0, 0, 0
	};
	(void)ctx;
	return host->register_pass(reg, &pass);
}

ONNXC_PLUGIN("options", "1.0", init, NULL);
