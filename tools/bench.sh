#!/usr/bin/env bash
# bench.sh - onnxc at disk speed: wall time and peak RSS (/usr/bin/time -v)
# of converting single-Linear models, next to cp + sync of the same
# weights file in the same run, and their ratio (medians of RUNS runs).
#
#   tools/bench.sh [--check] [BUILD_DIR]     (default: build)
#
# Rows: a 2.3 GB Linear (16384 -> 35100, written with external data, the
# automatic choice past 2 GB), a 1.6 GB one as a single .onnx, and the same
# as .ort; the 2.3 GB .ort must be refused (FlatBuffer limit).  Inputs are
# made by genlinear (tools/genlinear.c, built with onnxc) under
# $BENCH_DIR (default BUILD_DIR/bench; needs ~8 GB free), and removed
# after.  --check also runs the 2.3 GB model in ONNX Runtime (Node,
# tools/node_modules) against the weights' formula and reads it with
# /usr/bin/python3's onnx.load (minutes, ~10 GB of memory).
# Targets (issue 24): ratio <= 1.25, RSS < 256 MiB.  Then the graph table
# of tools/bench_graph.sh (100k and 1M-node chains; GRAPH_SIZES overrides,
# GRAPH_SIZES=none skips it): target 1,000,000 nodes/s at -O1.
set -eu
check=
if [ "${1:-}" = --check ]; then
	check=1
	shift
fi
build=${1:-build}
src=$(cd "$(dirname "$0")/.." && pwd)
onnxc=$build/onnxc gen=$build/genlinear
runs=${RUNS:-3}
for x in "$onnxc" "$gen"; do
	[ -x "$x" ] || { echo "bench: no $x (cmake --build $build)" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "bench: needs /usr/bin/time" >&2; exit 2; }
dir=${BENCH_DIR:-$build/bench}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
trap 'rm -rf "$dir/big" "$dir/mid" "$dir/out"' EXIT

now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# onnxc_run OUT ARGS...: "seconds kbytes" of one conversion and the sync
# of what it wrote (onnxc fsyncs its files itself; the sync is in both
# columns so that neither pays for the other's dirty pages)
onnxc_run() {
	local out=$1
	shift
	rm -rf "$dir/out"
	mkdir -p "$dir/out"
	sync
	local t0 t1
	t0=$(now)
	/usr/bin/time -v "$onnxc" "$@" -o "$dir/out/$out" 2>"$dir/time.txt" ||
	    { cat "$dir/time.txt" >&2; exit 1; }
	sync
	t1=$(now)
	echo "$(echo "$t1 - $t0" | bc) $(awk -F': ' \
	    '/Maximum resident/ {print $2}' "$dir/time.txt")"
}

cp_run() {
	rm -rf "$dir/out"
	mkdir -p "$dir/out"
	sync
	local t0 t1
	t0=$(now)
	cp "$1" "$dir/out/copy"
	sync
	t1=$(now)
	echo "$t1 - $t0" | bc
}

printf '%-34s %9s %9s %10s %7s\n' model "onnxc s" "RSS MiB" "cp+sync s" ratio
row() {
	local name=$1 w=$2 out=$3
	shift 3
	local ts=() rs=() cs=() i r
	for i in $(seq "$runs"); do
		r=$(onnxc_run "$out" "$@")
		ts+=("${r% *}")
		rs+=("${r#* }")
		cs+=("$(cp_run "$w")")
	done
	local t c m
	t=$(printf '%s\n' "${ts[@]}" | median)
	c=$(printf '%s\n' "${cs[@]}" | median)
	m=$(printf '%s\n' "${rs[@]}" | sort -g | tail -1)
	printf '%-34s %9.2f %9.1f %10.2f %7.2f\n' "$name" "$t" \
	    "$(echo "$m / 1024" | bc -l)" "$c" "$(echo "$t / $c" | bc -l)"
}

mkdir -p "$dir/big" "$dir/mid"
"$gen" "$dir/big" 16384 35100
"$gen" "$dir/mid" 16384 24400
big="$dir/big/graph.txt --weights $dir/big/weights.safetensors"
mid="$dir/mid/graph.txt --weights $dir/mid/weights.safetensors"
row "linear 2.3 GB, .onnx + .data" "$dir/big/weights.safetensors" \
    m.onnx $big
row "linear 1.6 GB, .onnx" "$dir/mid/weights.safetensors" m.onnx $mid
row "linear 1.6 GB, .ort" "$dir/mid/weights.safetensors" m.ort $mid

# the 2.3 GB model as .ort: one FlatBuffer cannot hold it
if "$onnxc" $big -o "$dir/out/m.ort" 2>"$dir/err.txt"; then
	echo "FAIL: a 2.3 GB .ort was written" >&2
	exit 1
fi
echo ".ort of 2.3 GB refused: $(grep -o 'error: .*' "$dir/err.txt" |
    cut -c1-100)..."

if [ -n "$check" ]; then
	rm -rf "$dir/out" && mkdir -p "$dir/out"
	"$onnxc" $big -o "$dir/out/m.onnx"
	(cd / && NODE_PATH="$src/tools/node_modules" node \
	    "$src/tools/check_linear.js" "$dir/out/m.onnx" 16384 35100)
	/usr/bin/python3 - "$dir/out/m.onnx" <<'EOF'
import sys, numpy as np, onnx
from onnx import numpy_helper
m = onnx.load(sys.argv[1])
w = numpy_helper.to_array([t for t in m.graph.initializer
                           if t.name == "fc.weight"][0]).ravel()
k = np.concatenate([np.arange(0, w.size, 4099, dtype=np.uint64),
                    np.arange(w.size - 4096, w.size, dtype=np.uint64)])
h = ((k * np.uint64(2654435761)) & np.uint64(0xffffffff)) >> np.uint64(20)
ok = np.array_equal(w[k.astype(np.int64)], ((h.astype(np.int64) - 2048) / 4096.0)
                    .astype(np.float32))
print("onnx.load: %d of %d weights %s" % (k.size, w.size, "match" if ok else "DIFFER"))
sys.exit(0 if ok else 1)
EOF
fi

if [ "${GRAPH_SIZES:-}" != none ]; then
	echo
	"$src/tools/bench_graph.sh" "$onnxc" ${GRAPH_SIZES:-100000 1000000}
fi
