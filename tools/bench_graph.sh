#!/usr/bin/env bash
# Graph speed: converts chains of 100,000 and 1,000,000 nodes in both styles
# (tools/gen_chain.sh: linear, and the torch <= 2.4 permute + addmm form) at
# -O0 and -O1 and prints one row each: wall seconds (best of 3), nodes/s and
# peak RSS.  Build with -DCMAKE_BUILD_TYPE=Release for numbers worth quoting.
# usage: tools/bench_graph.sh [ONNXC] [SIZES...]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
onnxc=${1:-$root/build/onnxc}
shift || true
sizes=${*:-100000 1000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
command -v /usr/bin/time >/dev/null || { echo "bench_graph: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
printf '| style | nodes | level | wall s | nodes/s | peak RSS MiB |\n|---|---|---|---|---|---|\n'
for style in linear addmm; do
	for n in $sizes; do
		"$root/tools/gen_chain.sh" "$n" $style "$work/g.txt" "$work/w.safetensors"
		for lvl in -O0 -O1; do
			best="" rss=""
			for k in 1 2 3; do
				/usr/bin/time -f '%e %M' -o "$work/t" "$onnxc" "$work/g.txt" \
				    --weights "$work/w.safetensors" $lvl -o "$work/out.onnx" >/dev/null
				read -r s kb < "$work/t"
				if [ -z "$best" ] || awk -v a="$s" -v b="$best" 'BEGIN{exit !(a < b)}'; then
					best=$s rss=$kb
				fi
			done
			awk -v st=$style -v n="$n" -v l=$lvl -v s="$best" -v kb="$rss" 'BEGIN{
				printf "| %s | %d | %s | %.2f | %.0f | %.0f |\n", st, n, l, s, (s > 0 ? n / s : 0), kb / 1024 }'
		done
	done
done
