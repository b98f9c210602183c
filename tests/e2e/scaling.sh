#!/usr/bin/env bash
# Guards against passes worse than O(n log n): converts chains of N and 2N nodes
# (tools/gen_chain.sh, both the linear and the permute+addmm style, the latter
# folding a constant per block at -O1) and requires the instructions the larger
# costs to be at most 2.5x the smaller's (counted by valgrind: see
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
exit $fail
