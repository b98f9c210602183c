#!/usr/bin/env bash
# Converts every case under CASES_DIR with onnxc and checks the model in ONNX Runtime against the
# outputs PyTorch computed (compare.js).
# usage: run_cases.sh ONNXC CASES_DIR [NAME_REGEX]
# A case is a folder with graph.txt, case.json, io.safetensors and (when the model has state)
# weights.safetensors; cases whose case.json says "expect": "diagnose" must convert or exit 1 with
# an 'error:' diagnostic.  case.json "symbolize" and "flags" add onnxc arguments (see
# 'compare.js --args'); "expect_warning" is an extended regex that onnxc's output must match.
# Prints 'PASS name' or 'FAIL name: why' per case, then the plain line 'N passed, N failed'.
# Exit 1 if any case failed, 2 on bad usage or missing tools.
# Environment: E2E_TIMEOUT (seconds per conversion, default 60), E2E_KEEP=DIR keeps the models,
# E2E_FLAGS adds onnxc arguments to every conversion (e.g. "-O2").
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
	echo "usage: $0 ONNXC CASES_DIR [NAME_REGEX]" >&2
	exit 2
fi
onnxc=$1 cases=$2 filter=${3:-}
[ -x "$onnxc" ] || { echo "run_cases: '$onnxc' is not an executable onnxc" >&2; exit 2; }
[ -d "$cases" ] || { echo "run_cases: '$cases' is not a folder" >&2; exit 2; }
command -v node >/dev/null || { echo "run_cases: node (Node.js) is not installed" >&2; exit 2; }
export NODE_PATH="$root/tools/node_modules${NODE_PATH:+:$NODE_PATH}"
if ! node -e 'require("onnxruntime-node")' >/dev/null 2>&1; then
	echo "run_cases: onnxruntime-node is missing; install it with:" >&2
	echo "    (cd $root/tools && npm ci --ignore-scripts)" >&2
	exit 2
fi
tmo=${E2E_TIMEOUT:-60}
work=${E2E_KEEP:-$(mktemp -d)}
mkdir -p "$work"
pass=0 fail=0
# Node starts in two processes for the whole folder, not three per case: --plan reads every
# case.json, --batch runs every converted model (per-case processes were most of the time).
checks="$work/.checks" results="$work/.results"
: >"$checks"
while IFS=$'\x1e' read -r c kind warn argstr; do
	name=$(basename "$c")
	if [ -n "$filter" ] && ! [[ $name =~ $filter ]]; then
		continue
	fi
	if [ "$kind" = error ]; then
		fail=$((fail + 1)); echo "FAIL $name: $warn"; continue
	fi
	out="$work/$name.onnx"
	rm -f "$out"
	w=()
	[ -f "$c/weights.safetensors" ] && w=(--weights "$c/weights.safetensors")
	[ -n "${E2E_FLAGS:-}" ] && read -r -a extra <<<"$E2E_FLAGS" && w+=("${extra[@]}")
	# "symbolize": {"x": {"0": "batch"}} -> --dynamic x:0=batch, then "flags" as they are
	if [ -n "$argstr" ]; then
		IFS=$'\x1f' read -r -a more <<<"$argstr"
		w+=("${more[@]}")
	fi
	msg=$(timeout "$tmo" "$onnxc" "$c/graph.txt" "${w[@]}" -o "$out" 2>&1)
	rc=$?
	first=$(printf '%s\n' "$msg" | grep -m1 'error' || printf '%s\n' "$msg" | head -n1)
	if [ "$kind" = diagnose ]; then
		if [ $rc = 0 ] && [ -s "$out" ]; then
			pass=$((pass + 1)); echo "PASS $name"
		elif [ $rc = 1 ] && printf '%s\n' "$msg" | grep -q 'error:'; then
			pass=$((pass + 1)); echo "PASS $name"
		else
			fail=$((fail + 1)); echo "FAIL $name: onnxc exit $rc without an error diagnostic: $first"
		fi
		continue
	fi
	if [ $rc = 124 ]; then
		fail=$((fail + 1)); echo "FAIL $name: onnxc timed out after ${tmo}s"; continue
	elif [ $rc != 0 ]; then
		fail=$((fail + 1)); echo "FAIL $name: onnxc exit $rc: $first"; continue
	elif [ ! -s "$out" ]; then
		fail=$((fail + 1)); echo "FAIL $name: onnxc exit 0 but wrote no $out"; continue
	elif [ -n "$warn" ] && ! printf '%s\n' "$msg" | grep -Eq -- "$warn"; then
		fail=$((fail + 1)); echo "FAIL $name: no diagnostic matches /$warn/: ${first:-no output}"
		continue
	fi
	printf '%s\t%s\t%s\n' "$name" "$out" "$c" >>"$checks"
done < <(find -L "$cases" -name case.json -printf '%h\n' | sort | node "$here/compare.js" --plan)

# The batch answers each check in order; a check it did not answer (ONNX Runtime took the
# process down) runs alone, and so does every one after it.
node "$here/compare.js" --batch <"$checks" >"$results" 2>"$work/.batch-errors"
mapfile -t res <"$results"
i=0
while IFS=$'\t' read -r name model c; do
	r=${res[$i]:-}
	i=$((i + 1))
	case $r in
	"PASS $name")
		pass=$((pass + 1)); echo "$r"; continue;;
	"FAIL $name: "*)
		fail=$((fail + 1)); echo "$r"; continue;;
	esac
	res=()
	if why=$(node "$here/compare.js" "$model" "$c" 2>&1); then
		pass=$((pass + 1)); echo "PASS $name"
	else
		fail=$((fail + 1)); echo "FAIL $name: $(printf '%s\n' "$why" | head -n1)"
	fi
done <"$checks"
[ -n "${E2E_KEEP:-}" ] || rm -rf "$work"
echo "$pass passed, $fail failed"
[ $fail = 0 ] && [ $pass -gt 0 ]
