/* genlinear.c - one nn.Linear as onnxc reads it, of any size, for tests
 * and tools/bench.sh: DIR/graph.txt (print(exported_program) of
 * y = linear(x, fc.weight, fc.bias), x f32[1, IN]) and
 * DIR/weights.safetensors (weight f32[OUT, IN], bias f32[OUT]).
 *
 *   genlinear DIR IN OUT [--bias-first]
 *
 * --bias-first lists the bias before the weight in the signature (so it
 * is the first initializer: tests of external data alignment).
 * Weights are a function of their index, so a checker can recompute them:
 * weight[k] = wval(k) (below, also in tools/check_linear.js), bias[j] =
 * (j % 7) / 8.  Exact in f32.  Written in 1 MiB blocks, any size.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static float
wval(uint64_t k)
{
	uint32_t h = (uint32_t)(k * 2654435761u);
	return (float)((int32_t)(h >> 20) - 2048) / 4096.0f;
}

static int
fail(const char *what, const char *path)
{
	fprintf(stderr, "genlinear: cannot write %s: %s\n", path, what);
	return 1;
}

int
main(int argc, char **argv)
{
	char path[4096];
	bool bias_first = argc == 5 && !strcmp(argv[4], "--bias-first");
	if (argc != 4 && !bias_first) {
		fprintf(stderr, "usage: genlinear DIR IN OUT [--bias-first]\n");
		return 2;
	}
	char params[256], wtext[96], btext[64];
	uint64_t in = strtoull(argv[2], NULL, 10);
	uint64_t out = strtoull(argv[3], NULL, 10);
	if (!in || !out) {
		fprintf(stderr, "genlinear: IN and OUT must be positive\n");
		return 2;
	}
	snprintf(path, sizeof path, "%s/graph.txt", argv[1]);
	FILE *g = fopen(path, "w");
	if (!g)
		return fail("cannot open", path);
	snprintf(wtext, sizeof wtext, "p_fc_weight: \"f32[%llu, %llu]\"",
	    (unsigned long long)out, (unsigned long long)in);
	snprintf(btext, sizeof btext, "p_fc_bias: \"f32[%llu]\"",
	    (unsigned long long)out);
	snprintf(params, sizeof params, "%s, %s", bias_first ? btext : wtext,
	    bias_first ? wtext : btext);
	const char *sig1 = "    p_fc_weight: PARAMETER target='fc.weight'\n";
	const char *sig2 = "    p_fc_bias: PARAMETER target='fc.bias'\n";
	fprintf(g,
	    "ExportedProgram:\n"
	    "    class GraphModule(torch.nn.Module):\n"
	    "        def forward(self, %s, x: \"f32[1, %llu]\"):\n"
	    "            linear: \"f32[1, %llu]\" = torch.ops.aten.linear."
	    "default(x, p_fc_weight, p_fc_bias);  x = p_fc_weight = "
	    "p_fc_bias = None\n"
	    "            return (linear,)\n"
	    "            \n"
	    "Graph signature: \n"
	    "    # inputs\n"
	    "%s%s"
	    "    x: USER_INPUT\n"
	    "    \n"
	    "    # outputs\n"
	    "    linear: USER_OUTPUT\n"
	    "    \n"
	    "Range constraints: {}\n", params, (unsigned long long)in,
	    (unsigned long long)out, bias_first ? sig2 : sig1,
	    bias_first ? sig1 : sig2);
	if (fclose(g) != 0)
		return fail("write failed", path);

	snprintf(path, sizeof path, "%s/weights.safetensors", argv[1]);
	FILE *w = fopen(path, "wb");
	if (!w)
		return fail("cannot open", path);
	uint64_t wn = in * out * 4, bn = out * 4;
	char hdr[512];
	int n = snprintf(hdr, sizeof hdr,
	    "{\"fc.weight\":{\"dtype\":\"F32\",\"shape\":[%llu,%llu],"
	    "\"data_offsets\":[0,%llu]},\"fc.bias\":{\"dtype\":\"F32\","
	    "\"shape\":[%llu],\"data_offsets\":[%llu,%llu]}}",
	    (unsigned long long)out, (unsigned long long)in,
	    (unsigned long long)wn, (unsigned long long)out,
	    (unsigned long long)wn, (unsigned long long)(wn + bn));
	while (n % 8)
		hdr[n++] = ' ';   /* tensor data 8-aligned, as writers do */
	unsigned char len[8];
	for (int i = 0; i < 8; i++)
		len[i] = (unsigned char)((uint64_t)n >> (8 * i));
	fwrite(len, 1, 8, w);
	fwrite(hdr, 1, (size_t)n, w);
	enum { BLOCK = 1 << 18 };
	static float buf[BLOCK];
	for (uint64_t k = 0; k < in * out;) {
		size_t c = 0;
		for (; c < BLOCK && k < in * out; c++, k++)
			buf[c] = wval(k);
		fwrite(buf, 4, c, w);
	}
	for (uint64_t j = 0; j < out; j++) {
		float b = (float)(j % 7) / 8.0f;
		fwrite(&b, 4, 1, w);
	}
	if (fclose(w) != 0)
		return fail("write failed", path);
	return 0;
}
