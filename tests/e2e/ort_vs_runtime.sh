#!/usr/bin/env bash
# The .ort backend against ONNX Runtime, case by case:
# 1. onnxc writes the case as .ort; flatc must decode it with ORT 1.30's schema;
# 2. ONNX Runtime for Node loads that .ort and its outputs must match PyTorch's (compare.js);
# 3. for every opset in ORT_OPSETS, onnxc writes .onnx and .ort, ONNX Runtime saves its own .ort
#    from the .onnx, and ort_compare.js compares the two decoded files (nodes, edges, resolver,
#    initializers, node_args), ordering aside.
# usage: ort_vs_runtime.sh ONNXC CASES_DIR [NAME_REGEX]
# Cases with "expect": "diagnose" are skipped; cases without io.safetensors (ort_probes: ops no
# other case reaches) are compared with ONNX Runtime's file only.  Environment: ORT_OPSETS (default "17 18 19 20 21
# 22 23"), ORT_SCHEMA (default backend/ort.fbs, ORT 1.30's schema, in this repository),
# E2E_KEEP=DIR keeps the files.
# Prints 'PASS name' or 'FAIL name: why' per case, then 'N passed, N failed'.  Exit 1 if any case
# failed, 2 on bad usage, 77 (skipped) without flatc, node, onnxruntime-node or the schema.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
	echo "usage: $0 ONNXC CASES_DIR [NAME_REGEX]" >&2
	exit 2
fi
onnxc=$1 cases=$2 filter=${3:-}
[ -x "$onnxc" ] || { echo "ort_vs_runtime: '$onnxc' is not an executable" >&2; exit 2; }
[ -d "$cases" ] || { echo "ort_vs_runtime: '$cases' is not a folder" >&2; exit 2; }
schema=${ORT_SCHEMA:-$root/backend/ort.fbs}
for t in node flatc; do
	command -v $t >/dev/null || { echo "skipped: $t is not installed"; exit 77; }
done
[ -f "$schema" ] || { echo "skipped: no ORT schema at $schema (set ORT_SCHEMA)"; exit 77; }
export NODE_PATH="$root/tools/node_modules${NODE_PATH:+:$NODE_PATH}"
node -e 'require("onnxruntime-node")' >/dev/null 2>&1 ||
	{ echo "skipped: onnxruntime-node is missing (cd tools && npm ci --ignore-scripts)"; exit 77; }
opsets=${ORT_OPSETS:-17 18 19 20 21 22 23}
work=${E2E_KEEP:-$(mktemp -d)}
mkdir -p "$work"
cp "$schema" "$work/ort.fbs"    # flatc wants the .fbs extension
pass=0 fail=0
while IFS= read -r meta; do
	c=$(dirname "$meta")
	name=$(basename "$c")
	[ -n "$filter" ] && ! [[ $name =~ $filter ]] && continue
	grep -q '"expect": *"diagnose"' "$meta" && continue
	w=()
	[ -f "$c/weights.safetensors" ] && w=(--weights "$c/weights.safetensors")
	if ! args=$(node "$here/compare.js" --args "$c" 2>&1); then
		fail=$((fail + 1)); echo "FAIL $name: $args"; continue
	fi
	while IFS= read -r f; do
		[ -n "$f" ] && w+=("$f")
	done <<<"$args"
	why=""
	out="$work/$name.ort"
	if ! msg=$("$onnxc" "$c/graph.txt" "${w[@]}" -o "$out" 2>&1); then
		why="onnxc: $(printf '%s\n' "$msg" | grep -m1 error)"
	elif ! msg=$(flatc --json --strict-json --raw-binary -o "$work" "$work/ort.fbs" -- "$out" 2>&1)
	then
		why="flatc cannot decode it: $msg"
	elif [ -f "$c/io.safetensors" ] && ! msg=$(node "$here/compare.js" "$out" "$c" 2>&1); then
		why="ONNX Runtime on the .ort: $(printf '%s\n' "$msg" | head -n1)"
	fi
	for op in $opsets; do
		[ -n "$why" ] && break
		base="$work/$name.op$op"
		# a case may need a later opset (bitwise ops need 18): then there is no
		# .onnx to compare with, and onnxc must refuse the .ort as well
		if ! "$onnxc" "$c/graph.txt" "${w[@]}" --opset "$op" -o "$base.onnx" >/dev/null 2>&1
		then
			"$onnxc" "$c/graph.txt" "${w[@]}" --opset "$op" -o "$base.ort" >/dev/null 2>&1 &&
				why="opset $op: onnxc wrote .ort but refused .onnx"
			continue
		fi
		if ! msg=$("$onnxc" "$c/graph.txt" "${w[@]}" --opset "$op" -o "$base.ort" 2>&1); then
			why="onnxc --opset $op: $(printf '%s\n' "$msg" | grep -m1 error)"
		elif ! msg=$(node "$here/ort_compare.js" "$base.onnx" "$base.ort" "$work/ort.fbs" 2>&1)
		then
			why="opset $op, onnxc's .ort differs from ONNX Runtime's: $(printf '%s\n' "$msg" |
				head -n3 | tr '\n' ';')"
		fi
	done
	if [ -z "$why" ]; then
		pass=$((pass + 1)); echo "PASS $name"
	else
		fail=$((fail + 1)); echo "FAIL $name: $why"
	fi
done < <(find -L "$cases" -name case.json | sort)
[ -n "${E2E_KEEP:-}" ] || rm -rf "$work"
echo "$pass passed, $fail failed"
[ $fail = 0 ] && [ $pass -gt 0 ]
