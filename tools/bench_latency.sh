#!/usr/bin/env bash
# Benchmark (not a test): ONNX Runtime (onnxruntime-node) latency of onnxc's -O1 and -O2 output,
# side by side, for the largest cases (by weights) of the given folders, with node counts.
# Each model pair is warmed up, then run in turns; the medians are printed (bench_latency.js).
# usage: tools/bench_latency.sh [-n COUNT] [-r RUNS] [--big] [ONNXC] [DIR...]
# Defaults: 6 cases, 30 runs, build/onnxc, ../shared/exports/torch-2.14 (cf_* and the __core
# twins left out; a __core case's weights file naming ../X/weights.safetensors is followed).
# --big: full-size ResNet-50, ViT-B/16, a 12-layer BERT and a 16-layer Llama instead, made once
# by tools/make_big_models.py with real PyTorch (../shared/tools/torch-env, 2.14) into
# $BENCH_MODELS (default build/big-models: a cache, never committed), each with the reference
# exporter's model (torch.onnx.export). For each it prints the whole conversion (archive in, ONNX
# out) at -O1 and -O2: wall seconds (median of 3) and peak RSS (GNU time), then the ONNX Runtime
# latency of onnxc's -O1 and -O2 models and of the reference's, run in turns in one process.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
count=6 runs=30 big=0
while [ $# -gt 0 ]; do
	case $1 in
	-n) count=$2; shift 2;;
	-r) runs=$2; shift 2;;
	--big) big=1; shift;;
	*) break;;
	esac
done
onnxc=${1:-$root/build/onnxc}
[ $# -gt 0 ] && shift
dirs=("$@")
if [ $big = 1 ]; then
	models=${BENCH_MODELS:-$root/build/big-models}
	mkdir -p "$models" && models=$(cd "$models" && pwd)
	# torch-env mounts the working folder (here: the models' folder) and ../shared; copies of
	# the script and caselib save relying on the latter
	# torch-env's Debian packages have no onnxscript, which the dynamo exporter needs: with
	# ONNXSCRIPT_PATH (a folder holding the pure-Python onnxscript and onnx_ir packages, e.g.
	# from their source trees' onnxscript/ and src/onnx_ir/) the reference is the dynamo one
	pypath=""
	if [ -n "${ONNXSCRIPT_PATH:-}" ]; then
		rm -rf "$models/pyref" && cp -r "$ONNXSCRIPT_PATH" "$models/pyref" && pypath=$models/pyref
	fi
	cp "$root/tools/make_big_models.py" "$root/../shared/tools/gen2/caselib.py" "$models/" &&
		(cd "$models" && "$root/../shared/tools/torch-env" run 2.14 env ONNXC_CASELIB="$models" \
			PYTHONPATH="$pypath" python3 make_big_models.py "$models") ||
		{ echo "bench_latency: could not make the full-size models" >&2; exit 1; }
	dirs=("$models")
fi
[ ${#dirs[@]} -gt 0 ] || dirs=("$root/../shared/exports/torch-2.14")
[ -x "$onnxc" ] || { echo "bench_latency: no onnxc at $onnxc" >&2; exit 2; }
export NODE_PATH="$root/tools/node_modules${NODE_PATH:+:$NODE_PATH}"
node -e 'require("onnxruntime-node")' 2>/dev/null ||
	{ echo "bench_latency: onnxruntime-node missing (cd tools && npm ci --ignore-scripts)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

weights() {  # CASE_DIR -> the real weights file, or nothing
	local w=$1/weights.safetensors
	[ -f "$w" ] || return 0
	if [ "$(stat -L -c %s "$w")" -lt 256 ] && head -c 3 "$w" | grep -q '^\.\./'; then
		w=$(cd "$1" && realpath "$(cat "$w")")
	fi
	echo "$w"
}

cases=$(for d in "${dirs[@]}"; do
	for m in $(find -L "$d" -name case.json); do
		c=$(dirname "$m"); n=$(basename "$c")
		case $n in cf_*|*__core) continue;; esac
		w=$(weights "$c"); s=0; [ -n "$w" ] && s=$(stat -L -c %s "$w")
		echo "$s $c"
	done
done | sort -rn | cut -d' ' -f2-)

nodes() {  # MODEL.onnx -> its top-level node count, where python3-onnx is there
	/usr/bin/python3 -c 'import onnx,sys; print(len(onnx.load(sys.argv[1], load_external_data=False).graph.node))' "$1" 2>/dev/null || echo -
}

convert() {  # CASE_DIR LEVEL OUT -> "seconds peak_MB" of the median run of 3 (by time)
	local c=$1 o=$2 out=$3 i
	for i in 1 2 3; do
		/usr/bin/time -f '%e %M' -o "$work/time" "$onnxc" "$c/model.pt2" -O"$o" -o "$out" \
			2>/dev/null || return 1
		awk '{printf "%s %.0f\n", $1, $2 / 1024}' "$work/time"
	done | sort -n | sed -n 2p
}

if [ $big = 1 ]; then
	[ -x /usr/bin/time ] || { echo "bench_latency: --big needs GNU time (/usr/bin/time)" >&2; exit 2; }
	printf '%-16s %8s %8s %8s %8s %6s %6s | %9s %9s %9s %6s\n' case O1_s O1_MB O2_s O2_MB \
		s_x MB_x O1_ms O2_ms ref_ms O2/ref
	for m in $(find -L "$models" -maxdepth 2 -name case.json | sort); do
		c=$(dirname "$m"); name=$(basename "$c")
		a=$(convert "$c" 1 "$work/$name.O1.onnx") && b=$(convert "$c" 2 "$work/$name.O2.onnx") ||
			{ printf '%-16s onnxc cannot convert it\n' "$name"; continue; }
		read -r t1 r1 <<<"$a"; read -r t2 r2 <<<"$b"
		ms=("$work/$name.O1.onnx" "$work/$name.O2.onnx")
		[ -f "$c/reference.onnx" ] && ms+=("$c/reference.onnx")
		read -r l1 l2 l3 < <(node "$root/tools/bench_latency.js" "${ms[@]}" "$c" "$runs" ||
			echo - - -)
		printf '%-16s %8s %8s %8s %8s %6s %6s | %9s %9s %9s %6s\n' "$name" "$t1" "$r1" "$t2" "$r2" \
			"$(awk -v a="$t1" -v b="$t2" 'BEGIN{printf "%.2f", b/a}')" \
			"$(awk -v a="$r1" -v b="$r2" 'BEGIN{printf "%.2f", b/a}')" "$l1" "$l2" "${l3:--}" \
			"$(awk -v a="$l2" -v b="${l3:--}" 'BEGIN{if (b+0 > 0) printf "%.2f", a/b; else print "-"}')"
		rm -f "$work/$name".O?.onnx*
	done
	exit 0
fi

printf '%-24s %8s %8s %10s %10s %7s\n' case nodes_O1 nodes_O2 O1_ms O2_ms O2/O1
done_=0
for c in $cases; do
	[ "$done_" -ge "$count" ] && break
	name=$(basename "$c")
	w=(); wf=$(weights "$c"); [ -n "$wf" ] && w=(--weights "$wf")
	mapfile -t extra < <(node "$root/tests/e2e/compare.js" --args "$c")
	ok=1
	for o in 1 2; do
		"$onnxc" "$c/graph.txt" "${w[@]}" "${extra[@]}" -O$o -o "$work/$name.O$o.onnx" 2>/dev/null || ok=0
	done
	[ $ok = 1 ] || { printf '%-24s onnxc cannot convert it\n' "$name"; continue; }
	t=$(node "$root/tools/bench_latency.js" "$work/$name.O1.onnx" "$work/$name.O2.onnx" "$c" "$runs") ||
		{ printf '%-24s ONNX Runtime cannot run it\n' "$name"; continue; }
	read -r a b <<<"$t"
	printf '%-24s %8s %8s %10s %10s %7s\n' "$name" "$(nodes "$work/$name.O1.onnx")" \
		"$(nodes "$work/$name.O2.onnx")" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.2f", b/a}')"
	done_=$((done_ + 1))
done
