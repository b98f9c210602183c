#!/usr/bin/env bash
# Writes a print(ep)-style dump of a long chain for benchmarks: blocks of
# linear -> relu -> add -> sigmoid -> mul (style "linear", torch >= 2.5), or
# permute(W) -> addmm -> relu -> add -> sigmoid -> mul (style "addmm", torch
# <= 2.4), all blocks sharing two weights of 16x16 and two biases.
# With OUT.safetensors, also writes the weights (zeros: the values do not
# matter to the time it takes).
# usage: tools/gen_chain.sh NODES linear|addmm OUT.txt [OUT.safetensors]
set -eu
n=$1 style=$2 out=$3 wout=${4:-}
if [ -n "$wout" ]; then
	h='{"l0.weight":{"dtype":"F32","shape":[16,16],"data_offsets":[0,1024]},'
	h+='"l0.bias":{"dtype":"F32","shape":[16],"data_offsets":[1024,1088]},'
	h+='"l1.weight":{"dtype":"F32","shape":[16,16],"data_offsets":[1088,2112]},'
	h+='"l1.bias":{"dtype":"F32","shape":[16],"data_offsets":[2112,2176]}}'
	while [ $(( ${#h} % 8 )) != 0 ]; do h+=' '; done
	{
		printf "$(printf '\\x%02x' $(( ${#h} & 255 )) $(( ${#h} >> 8 )))"
		printf '\0\0\0\0\0\0'
		printf '%s' "$h"
		head -c 2176 /dev/zero
	} > "$wout"
fi
awk -v n="$n" -v style="$style" '
function t(s) { return "\"f32[8, 16]\"" }
BEGIN {
	print "ExportedProgram:"
	print "    class GraphModule(torch.nn.Module):"
	print "        def forward(self, p_w0: \"f32[16, 16]\", p_b0: \"f32[16]\", p_w1: \"f32[16, 16]\", p_b1: \"f32[16]\", x: \"f32[8, 16]\"):"
	per = style == "addmm" ? 6 : 5
	blocks = int(n / per); if (blocks < 1) blocks = 1
	prev = "x"
	for (i = 0; i < blocks; i++) {
		k = i % 2
		if (style == "addmm") {
			printf "            permute_%d: \"f32[16, 16]\" = torch.ops.aten.permute.default(p_w%d, [1, 0])\n", i, k
			printf "            lin_%d: %s = torch.ops.aten.addmm.default(p_b%d, %s, permute_%d)\n", i, t(), k, prev, i
		} else
			printf "            lin_%d: %s = torch.ops.aten.linear.default(%s, p_w%d, p_b%d)\n", i, t(), prev, k, k
		printf "            relu_%d: %s = torch.ops.aten.relu.default(lin_%d)\n", i, t(), i
		printf "            add_%d: %s = torch.ops.aten.add.Tensor(relu_%d, %s)\n", i, t(), i, prev
		printf "            sig_%d: %s = torch.ops.aten.sigmoid.default(add_%d)\n", i, t(), i
		printf "            mul_%d: %s = torch.ops.aten.mul.Tensor(sig_%d, add_%d)\n", i, t(), i, i
		prev = "mul_" i
	}
	printf "            return (%s,)\n\n", prev
	print "Graph signature:"
	print "    # inputs"
	for (k = 0; k < 2; k++) {
		printf "    p_w%d: PARAMETER target=\x27l%d.weight\x27\n", k, k
		printf "    p_b%d: PARAMETER target=\x27l%d.bias\x27\n", k, k
	}
	print "    x: USER_INPUT"
	print ""
	print "    # outputs"
	printf "    %s: USER_OUTPUT\n\n", prev
	print "Range constraints: {}"
}' > "$out"
