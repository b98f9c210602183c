#!/usr/bin/env bash
# Graph speed: converts chains of 100,000 and 1,000,000 nodes in both styles
# (tools/gen_chain.sh: linear, and the torch <= 2.4 permute + addmm form) at
# -O0 and -O1 and prints one row each: wall seconds (best of 3), the user
# and system CPU seconds and minor page faults of that run, nodes/s and peak
# RSS.  Then memprobe (built beside ONNXC) says what touching that much fresh
# memory costs on this machine: the part of the wall time that is the
# machine's page faults.  Build with -DCMAKE_BUILD_TYPE=Release for numbers
# worth quoting.
# usage: tools/bench_graph.sh [ONNXC] [SIZES...]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
onnxc=${1:-$root/build/onnxc}
shift || true
sizes=${*:-100000 1000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
command -v /usr/bin/time >/dev/null || { echo "bench_graph: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
printf '| style | nodes | level | wall s | user s | sys s | faults | nodes/s | peak RSS MiB |\n|---|---|---|---|---|---|---|---|---|\n'
maxkb=0
for style in linear addmm; do
	for n in $sizes; do
		"$root/tools/gen_chain.sh" "$n" $style "$work/g.txt" "$work/w.safetensors"
		for lvl in -O0 -O1; do
			best="" rss="" cpu=""
			for k in 1 2 3; do
				# a fresh output, as a first conversion writes
				# (replacing one frees its blocks, ~30 ms here)
				rm -f "$work/out.onnx"
				/usr/bin/time -f '%e %M %U %S %R' -o "$work/t" "$onnxc" "$work/g.txt" \
				    --weights "$work/w.safetensors" $lvl -o "$work/out.onnx" >/dev/null
				read -r s kb u sy f < "$work/t"
				if [ -z "$best" ] || awk -v a="$s" -v b="$best" 'BEGIN{exit !(a < b)}'; then
					best=$s rss=$kb cpu="$u $sy $f"
				fi
			done
			[ "$rss" -gt "$maxkb" ] && maxkb=$rss
			set -- $cpu
			awk -v st=$style -v n="$n" -v l=$lvl -v s="$best" -v kb="$rss" \
			    -v u="$1" -v sy="$2" -v f="$3" 'BEGIN{
				printf "| %s | %d | %s | %.2f | %.2f | %.2f | %d | %.0f | %.0f |\n",
				    st, n, l, s, u, sy, f, (s > 0 ? n / s : 0), kb / 1024 }'
		done
	done
done
probe=$(dirname "$onnxc")/memprobe
if [ -x "$probe" ]; then
	echo
	"$probe" $(( maxkb / 1024 + 1 ))
fi
