#!/usr/bin/env bash
# Training export (--training) on real train-mode exports (tests/training, made by
# tests/gen/make_training_cases.py):
# - structure (training_check.py): one ONNX Dropout in training mode per dropout site of the dump
#   (24 in the 6-layer TransformerEncoder LM), every parameter and buffer an initializer under its
#   state-dict key with its bytes untouched (at -O2 too), the user inputs as the only graph inputs,
#   batch norm on batch statistics (never inference BatchNormalization) by default and as
#   BatchNormalization(training_mode=1) with lower{onnx-batch-norm=true};
# - statistics in ONNX Runtime (training_stats.js): dropout p=0.5 zeroes about half and doubles the
#   rest, Dropout2d zeroes whole channels, alpha dropout takes its two affine levels;
# - without --training a train-mode dropout is an error that names --training, and no file is left.
# usage: training.sh ONNXC CASES_DIR
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
onnxc=$1 cases=$2
py=""
for p in ${PYTHON:-} python3 /usr/bin/python3; do
	command -v "$p" >/dev/null && "$p" -c 'import onnx' >/dev/null 2>&1 && { py=$p; break; }
done
[ -n "$py" ] || { echo "training: skipped: no python3 with onnx"; exit 77; }
export NODE_PATH="$root/tools/node_modules${NODE_PATH:+:$NODE_PATH}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
ok() { echo "PASS $*"; }
bad() { echo "FAIL $*"; fail=1; }

conv() {  # CASE OUT FLAGS...
	local c=$cases/$1 out=$2
	shift 2
	local w=()
	[ -f "$c/weights.safetensors" ] && w=(--weights "$c/weights.safetensors")
	"$onnxc" "$c/graph.txt" "${w[@]}" "$@" -o "$out"
}

o1="inline,retype-int-div,functionalize,templates,decompose,symbolize-shapes,fold,cse,dce,lower{onnx-batch-norm=true},cse,dce"
for c in transformer_lm cnn_bn_dropout; do
	for lvl in -O1 -O2; do
		if conv $c "$work/$c$lvl.onnx" --training $lvl 2>"$work/err"; then
			if "$py" "$here/training_check.py" "$work/$c$lvl.onnx" "$cases/$c" exact; then
				ok "$c $lvl"
			else
				bad "$c $lvl: structure"
			fi
		else
			bad "$c $lvl: $(head -n1 "$work/err")"
		fi
	done
	if conv $c "$work/$c.bn.onnx" --training --passes="$o1" 2>"$work/err" &&
	    "$py" "$here/training_check.py" "$work/$c.bn.onnx" "$cases/$c" onnx; then
		ok "$c onnx-batch-norm"
	else
		bad "$c onnx-batch-norm: $(head -n1 "$work/err")"
	fi
	if conv $c "$work/no.onnx" 2>"$work/err"; then
		bad "$c converted without --training"
	elif ! grep -q 'error:.*pass --training' "$work/err" || [ -e "$work/no.onnx" ]; then
		bad "$c without --training: $(head -n1 "$work/err")"
	else
		ok "$c refused without --training"
	fi
done

for c in dropout_half dropout_feature dropout_alpha; do
	if conv $c "$work/$c.onnx" --training 2>"$work/err" &&
	    "$py" "$here/training_check.py" "$work/$c.onnx" "$cases/$c" exact &&
	    node "$here/training_stats.js" "$work/$c.onnx" "$cases/$c"; then
		ok "$c"
	else
		bad "$c: $(head -n1 "$work/err")"
	fi
done

# deterministic cases against PyTorch's numbers: batch statistics, dropout with p = 0
"$here/run_cases.sh" "$onnxc" "$cases" '^(bn_train|dropout_p0)$' || fail=1
exit $fail
