#!/usr/bin/env bash
# The decompose pass, numerically: every case converts and matches PyTorch in
# ONNX Runtime when decompose rewrites every op it has a decomposition for,
# lowered or not (--passes='decompose{all=true},lower').
# usage: decompose_all.sh ONNXC CASES_DIR...
#   each CASES_DIR goes through run_cases.sh with that pipeline; a folder named
#   cases-decompose (pre-dispatch ops: linear, conv2d, sdpa, einsum, ...) is
#   also checked for what decompose did:
#   - after decompose{all=true} none of its ops is left but aten::view;
#   - keep= leaves the named op whole, and the model still matches;
#   - without all=true only ops that have no lowering are rewritten (linear
#     stays), and 'decompose,lower' converts ops only decompose handles
#     (hardshrink, xlogy, ...) which --passes=lower alone refuses.
# Prints PASS/FAIL lines, then 'N passed, N failed'; exit 1 if any failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 2 ]; then
	echo "usage: $0 ONNXC CASES_DIR..." >&2
	exit 2
fi
onnxc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
if [ ! -x "$onnxc" ]; then
	echo "decompose_all: '$onnxc' is not executable" >&2
	exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0 fail=0

# onnxc with extra flags, as an executable run_cases.sh can call
wrap() {
	local f=$work/$1
	shift
	{
		echo '#!/bin/sh'
		printf 'exec %q' "$onnxc"
		printf ' %q' "$@"
		echo ' "$@"'
	} >"$f"
	chmod +x "$f"
	echo "$f"
}

# run_cases.sh over a folder; its PASS/FAIL lines count here
cases() {
	local label=$1 exe=$2 dir=$3 filter=${4:-} line
	while IFS= read -r line; do
		case $line in
		PASS*) pass=$((pass + 1)); echo "PASS $label: ${line#PASS }" ;;
		FAIL*) fail=$((fail + 1)); echo "FAIL $label: ${line#FAIL }" ;;
		esac
	done < <("$here/run_cases.sh" "$exe" "$dir" $filter 2>&1)
}

check() {
	if [ "$2" = 0 ]; then
		pass=$((pass + 1)); echo "PASS $1"
	else
		fail=$((fail + 1)); echo "FAIL $1${3:+: $3}"
	fi
}

# the IR after decompose for a case, on stdout
ir_after() {
	local c=$1 passes=$2 w=()
	[ -f "$c/weights.safetensors" ] &&
	    w=(--weights "$c/weights.safetensors")
	"$onnxc" "$c/graph.txt" "${w[@]}" --passes="$passes" \
	    --print-ir-after=decompose -o "$work/ir.onnx" 2>&1
}

all=$(wrap all --passes='decompose{all=true},lower')
for dir in "$@"; do
	name=$(basename "$dir")
	cases "all=true" "$all" "$dir"
	[ "$name" = cases-decompose ] || continue

	# nothing decomposable survives all=true
	for c in "$dir"/*/; do
		c=${c%/}
		ops=$(grep -o 'torch\.ops\.aten\.[a-z_0-9]*\.[A-Za-z_0-9]*' \
		    "$c/graph.txt" | sed 's/torch\.ops\.aten\./aten::/' |
		    grep -v '^aten::view\.default$' | sort -u)
		ir=$(ir_after "$c" 'decompose{all=true},lower')
		left=$(for op in $ops; do
			printf '%s\n' "$ir" | grep -qF "$op(" && echo "$op"
		done)
		check "all=true rewrites every op of $(basename "$c")" \
		    "$([ -z "$left" ] && printf '%s' "$ir" | grep -q 'aten::' &&
		    echo 0 || echo 1)" "left: $(echo $left)"
	done

	# keep= leaves sdpa whole; the rest still decomposes and matches
	keep='aten::scaled_dot_product_attention.default'
	ir=$(ir_after "$dir/dec_sdpa" "decompose{all=true,keep='$keep'},lower")
	check "keep=$keep leaves it whole" \
	    "$(printf '%s' "$ir" | grep -qF "$keep(" && echo 0 || echo 1)"
	kp=$(wrap keep \
	    --passes="decompose{all=true,keep='$keep,aten::linear'},lower")
	cases "keep=" "$kp" "$dir" '^dec_(sdpa|linear)$'

	# without all=true: linear has a lowering, so it stays
	ir=$(ir_after "$dir/dec_linear" 'decompose,lower')
	check "decompose without all=true leaves aten::linear.default" \
	    "$(printf '%s' "$ir" | grep -qF 'aten::linear.default(' &&
	    echo 0 || echo 1)"
	# ... and ops with no lowering are decomposed
	dflt=$(wrap default --passes='decompose,lower')
	cases "decompose,lower" "$dflt" "$dir" '^dec_elementwise$'
	c=$dir/dec_elementwise
	msg=$("$onnxc" "$c/graph.txt" --weights "$c/weights.safetensors" \
	    --passes=lower -o "$work/x.onnx" 2>&1)
	check "--passes=lower alone refuses aten::hardshrink.default" \
	    "$([ $? = 1 ] && printf '%s' "$msg" |
	    grep -q "unsupported operator 'aten::hardshrink.default'" &&
	    echo 0 || echo 1)"
done
echo "$pass passed, $fail failed"
[ $fail = 0 ] && [ $pass -gt 0 ]
