#!/usr/bin/env bash
# Guards against passes worse than O(n log n): converts chains of N and 2N nodes
# (tools/gen_chain.sh, both the linear and the permute+addmm style, the latter
# folding a constant per block at -O1) and requires the CPU time of the larger
# to be at most 2.5x the smaller's (best of 5 each, so a busy machine does not
# decide).  A quadratic pass gives about 4x.
# usage: scaling.sh ONNXC [N]
set -u
onnxc=$1 n=${2:-40000}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
cpu() {  # best CPU seconds (user + sys) of 3 runs of onnxc ARGS...
	local best="" t k
	for k in 1 2 3 4 5; do
		t=$( { TIMEFORMAT='%3U %3S'; time "$onnxc" "$@" >/dev/null 2>&1; } 2>&1 | awk '{print $1 + $2}')
		[ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN{exit !(a < b)}' && best=$t
	done
	echo "$best"
}
for style in linear addmm; do
	for m in $n $((2 * n)); do
		"$root/tools/gen_chain.sh" $m $style "$work/$style$m.txt" "$work/w.safetensors"
	done
	a=$(cpu "$work/$style$n.txt" --weights "$work/w.safetensors" -O1 -o "$work/a.onnx")
	b=$(cpu "$work/$style$((2 * n)).txt" --weights "$work/w.safetensors" -O1 -o "$work/b.onnx")
	[ -s "$work/a.onnx" ] && [ -s "$work/b.onnx" ] || { echo "FAIL $style: no model written"; fail=1; continue; }
	if awk -v a="$a" -v b="$b" 'BEGIN{exit !(b <= 2.5 * a + 0.05)}'; then
		echo "PASS $style: $n nodes ${a}s, $((2 * n)) nodes ${b}s"
	else
		echo "FAIL $style: $n nodes ${a}s, $((2 * n)) nodes ${b}s (more than 2.5x)"; fail=1
	fi
done
exit $fail
