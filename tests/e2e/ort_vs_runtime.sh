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
# onnxc and flatc run per case; the two Node checks run once each for the whole folder
# (compare.js --batch, ort_compare.js --batch): per-case Node processes were most of the time.
declare -A why=()
names=() runs="$work/.runs" pairs="$work/.pairs"
: >"$runs"; : >"$pairs"
while IFS=$'\x1e' read -r c kind warn argstr; do
	name=$(basename "$c")
	[ -n "$filter" ] && ! [[ $name =~ $filter ]] && continue
	[ "$kind" = diagnose ] && continue
	names+=("$name")
	if [ "$kind" = error ]; then
		why[$name]=$warn; continue
	fi
	w=()
	[ -f "$c/weights.safetensors" ] && w=(--weights "$c/weights.safetensors")
	if [ -n "$argstr" ]; then
		IFS=$'\x1f' read -r -a more <<<"$argstr"
		w+=("${more[@]}")
	fi
	out="$work/$name.ort"
	if ! msg=$("$onnxc" "$c/graph.txt" "${w[@]}" -o "$out" 2>&1); then
		why[$name]="onnxc: $(printf '%s\n' "$msg" | grep -m1 error)"; continue
	elif ! msg=$(flatc --json --strict-json --raw-binary -o "$work" "$work/ort.fbs" -- "$out" 2>&1)
	then
		why[$name]="flatc cannot decode it: $msg"; continue
	fi
	[ -f "$c/io.safetensors" ] && printf '%s\t%s\t%s\n' "$name" "$out" "$c" >>"$runs"
	for op in $opsets; do
		base="$work/$name.op$op"
		# a case may need a later opset (bitwise ops need 18): then there is no
		# .onnx to compare with, and onnxc must refuse the .ort as well
		if ! "$onnxc" "$c/graph.txt" "${w[@]}" --opset "$op" -o "$base.onnx" >/dev/null 2>&1
		then
			"$onnxc" "$c/graph.txt" "${w[@]}" --opset "$op" -o "$base.ort" >/dev/null 2>&1 &&
				why[$name]="opset $op: onnxc wrote .ort but refused .onnx" && break
			continue
		fi
		if ! msg=$("$onnxc" "$c/graph.txt" "${w[@]}" --opset "$op" -o "$base.ort" 2>&1); then
			why[$name]="onnxc --opset $op: $(printf '%s\n' "$msg" | grep -m1 error)"; break
		fi
		printf '%s\t%s\t%s\n' "$name@$op" "$base.onnx" "$base.ort" >>"$pairs"
	done
done < <(find -L "$cases" -name case.json -printf '%h\n' | sort | node "$here/compare.js" --plan)

# verdicts of one batch: LABEL<TAB>A<TAB>B lines of FILE against SCRIPT --batch's PASS/FAIL
# lines, in order; a line the batch did not answer (ONNX Runtime took the process down) runs
# alone (SCRIPT A B EXTRA), and so does every one after it.  Keeps the first failure of each case
# (LABEL up to '@'; OP in WHAT becomes what follows it).
verdicts() {  # FILE WHAT SCRIPT [EXTRA]
	local file=$1 what=$2 script=$3 extra=("${@:4}") label a b r n i=0 res=()
	mapfile -t res < <(node "$script" --batch "${extra[@]}" <"$file" 2>/dev/null)
	while IFS=$'\t' read -r label a b; do
		r=${res[$i]:-}; i=$((i + 1)); n=${label%@*}
		case $r in
		"PASS $label") continue;;
		"FAIL $label: "*) r=${r#"FAIL $label: "};;
		*) res=(); r=$(node "$script" "$a" "$b" "${extra[@]}" 2>&1) && continue;;
		esac
		[ -n "${why[$n]:-}" ] ||
			why[$n]="${what//OP/${label#*@}}: $(printf '%s\n' "$r" | head -n3 | tr '\n' ';')"
	done <"$file"
}
verdicts "$runs" "ONNX Runtime on the .ort" "$here/compare.js"
verdicts "$pairs" "opset OP, onnxc's .ort differs from ONNX Runtime's" "$here/ort_compare.js" \
	"$work/ort.fbs"
for name in "${names[@]}"; do
	if [ -z "${why[$name]:-}" ]; then
		pass=$((pass + 1)); echo "PASS $name"
	else
		fail=$((fail + 1)); echo "FAIL $name: ${why[$name]}"
	fi
done
[ -n "${E2E_KEEP:-}" ] || rm -rf "$work"
echo "$pass passed, $fail failed"
[ $fail = 0 ] && [ $pass -gt 0 ]
