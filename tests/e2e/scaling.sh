#!/usr/bin/env bash
# Guards against passes worse than O(n log n): converts chains of N and 2N nodes
# (tools/gen_chain.sh, both the linear and the permute+addmm style, the latter
# folding a constant per block at -O1) and requires the instructions the larger
# costs to be at most 2.5x the smaller's, and the same of a chain of
# template ops (the templates pass) (counted by valgrind: see
# scaling_lib.sh).  A quadratic pass gives about 4x.
# usage: scaling.sh ONNXC [N]
set -u
onnxc=$1 n=${2:-40000}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
. "$root/tests/e2e/scaling_lib.sh"
need_valgrind
for style in linear addmm; do
	for m in $n $((2 * n)); do
		"$root/tools/gen_chain.sh" $m $style "$work/$style$m.txt" "$work/w.safetensors"
	done
	a=$(cost "$onnxc" "$work/$style$n.txt" --weights "$work/w.safetensors" -O1 -o "$work/a.onnx")
	b=$(cost "$onnxc" "$work/$style$((2 * n)).txt" --weights "$work/w.safetensors" -O1 -o "$work/b.onnx")
	[ -s "$work/a.onnx" ] && [ -s "$work/b.onnx" ] || { echo "FAIL $style: no model written"; fail=1; continue; }
	judge "$style nodes" $n "$a" "$b" || fail=1
done
# the templates pass: a chain of special_expit, each node inlined from its template
tpl_chain() {  # N FILE
	awk -v n="$1" 'BEGIN {
		print "ExportedProgram:\n    class GraphModule(torch.nn.Module):"
		print "        def forward(self, x: \"f32[4, 6]\"):"
		p = "x"
		for (i = 0; i < n; i++) {
			printf "            e%d: \"f32[4, 6]\" = torch.ops.aten.special_expit.default(%s)\n", i, p
			p = "e" i
		}
		printf "            return (%s,)\n\nGraph signature:\n    # inputs\n    x: USER_INPUT\n\n", p
		printf "    # outputs\n    %s: USER_OUTPUT\n", p
	}' >"$2"
}
tpl_chain $n "$work/tpl_a.txt"
tpl_chain $((2 * n)) "$work/tpl_b.txt"
a=$(cost "$onnxc" "$work/tpl_a.txt" -O1 -o "$work/a.onnx")
b=$(cost "$onnxc" "$work/tpl_b.txt" -O1 -o "$work/b.onnx")
if [ -s "$work/a.onnx" ] && [ -s "$work/b.onnx" ]; then
	judge "template nodes" $n "$a" "$b" || fail=1
else
	echo "FAIL templates: no model written"; fail=1
fi
exit $fail
