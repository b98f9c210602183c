#!/usr/bin/env bash
# Benchmark (not a test): for the largest corpus models, the time onnxc takes to write an .ort
# file against the time ONNX Runtime takes to load onnxc's .onnx and save it as .ort (what users
# do today: sessionOptions optimizedModelFilePath + session.save_model_format=ORT, graph
# optimizations disabled).
# usage: tools/bench_ort.sh [ONNXC] [CORPUS_DIR] [COUNT] [RUNS]
# Defaults: build/onnxc, ../shared/corpus, the 5 cases with the largest weights, best of 3 runs.
# onnxc is timed as a whole process (parse, lower, write); ONNX Runtime inside one Node process
# (session creation with the save; Node's own start-up is not counted).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
onnxc=${1:-$root/build/onnxc}
corpus=${2:-$root/../shared/corpus}
count=${3:-5}
runs=${4:-3}
[ -x "$onnxc" ] || { echo "bench_ort: no onnxc at $onnxc" >&2; exit 2; }
[ -d "$corpus" ] || { echo "bench_ort: no corpus at $corpus" >&2; exit 2; }
export NODE_PATH="$root/tools/node_modules${NODE_PATH:+:$NODE_PATH}"
node -e 'require("onnxruntime-node")' 2>/dev/null ||
	{ echo "bench_ort: onnxruntime-node missing (cd tools && npm ci --ignore-scripts)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

now_ms() { date +%s%N | awk '{ printf "%.1f", $1 / 1e6 }'; }

# the largest cases by weights, among those onnxc converts
cases=$(for m in $(find -L "$corpus" -name case.json); do
	c=$(dirname "$m")
	grep -q '"expect": *"diagnose"' "$m" && continue
	grep -q '"symbolize"' "$m" && continue
	s=0; [ -f "$c/weights.safetensors" ] && s=$(stat -L -c %s "$c/weights.safetensors")
	echo "$s $c"
done | sort -rn | head -n "$count" | cut -d' ' -f2-)

printf '%-28s %9s %9s %12s %14s %8s\n' case weights .ort onnxc_ms ort_save_ms ratio
for c in $cases; do
	name=$(basename "$c")
	w=(); [ -f "$c/weights.safetensors" ] && w=(--weights "$c/weights.safetensors")
	"$onnxc" "$c/graph.txt" "${w[@]}" -o "$work/$name.onnx" 2>/dev/null ||
		{ printf '%-28s onnxc cannot convert it\n' "$name"; continue; }
	best=""
	for _ in $(seq "$runs"); do
		t0=$(now_ms)
		"$onnxc" "$c/graph.txt" "${w[@]}" -o "$work/$name.ort" 2>/dev/null ||
			{ best=fail; break; }
		t1=$(now_ms)
		best=$(awk -v a="$best" -v b="$(awk -v x="$t0" -v y="$t1" 'BEGIN{print y-x}')" \
			'BEGIN { printf "%.1f", (a == "" || b < a) ? b : a }')
	done
	[ "$best" = fail ] && { printf '%-28s onnxc cannot write .ort\n' "$name"; continue; }
	ortms=$(node -e '
		const ort = require("onnxruntime-node");
		(async () => {
			let best = Infinity;
			for (let i = 0; i < +process.argv[3]; i++) {
				const t0 = process.hrtime.bigint();
				const s = await ort.InferenceSession.create(process.argv[1], {
					graphOptimizationLevel: "disabled", logSeverityLevel: 3,
					optimizedModelFilePath: process.argv[2],
					extra: { session: { save_model_format: "ORT" } } });
				best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e6);
				if (s.release) await s.release();
			}
			console.log(best.toFixed(1));
		})().catch((e) => { console.log("fail"); });' \
		"$work/$name.onnx" "$work/$name.ref.ort" "$runs")
	wsz=$(awk -v s="$(stat -L -c %s "${w[1]:-/dev/null}" 2>/dev/null || echo 0)" \
		'BEGIN { printf "%.1fM", s / 1048576 }')
	osz=$(awk -v s="$(stat -c %s "$work/$name.ort")" 'BEGIN { printf "%.1fM", s / 1048576 }')
	ratio=$(awk -v a="$best" -v b="$ortms" 'BEGIN { if (b + 0 > 0 && a + 0 > 0)
		printf "%.1fx", b / a; else print "-" }')
	printf '%-28s %9s %9s %12s %14s %8s\n' "$name" "$wsz" "$osz" "$best" "$ortms" "$ratio"
done
echo "ratio: ONNX Runtime's load-and-save time over onnxc's whole run (higher favours onnxc)"
