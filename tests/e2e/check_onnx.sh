#!/usr/bin/env bash
# Converts every case under CASES_DIR with 'onnxc --opset 17' and runs the ONNX checker with
# full_check=True (shape inference in strict mode) on each model.
# usage: check_onnx.sh ONNXC CASES_DIR [NAME_REGEX]
# Needs python3 with the onnx package (Debian: python3-onnx); without it prints why and exits 77
# (ctest reports the test as skipped).  Cases with "expect": "diagnose" are left out.
# Prints 'PASS name' or 'FAIL name: why', then 'N passed, N failed'; exit 1 if any failed.
set -u
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
	echo "usage: $0 ONNXC CASES_DIR [NAME_REGEX]" >&2
	exit 2
fi
onnxc=$1 cases=$2 filter=${3:-}
[ -x "$onnxc" ] || { echo "check_onnx: '$onnxc' is not an executable onnxc" >&2; exit 2; }
[ -d "$cases" ] || { echo "check_onnx: '$cases' is not a folder" >&2; exit 2; }
py=""
for p in ${PYTHON:-} python3 /usr/bin/python3; do
	if command -v "$p" >/dev/null && "$p" -c 'import onnx' >/dev/null 2>&1; then
		py=$p
		break
	fi
done
if [ -z "$py" ]; then
	echo "check_onnx: skipped: no python3 with the onnx package (apt-get install python3-onnx)"
	exit 77
fi
tmo=${E2E_TIMEOUT:-60}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0 fail=0
while IFS= read -r meta; do
	c=$(dirname "$meta")
	name=$(basename "$c")
	if [ -n "$filter" ] && ! [[ $name =~ $filter ]]; then
		continue
	fi
	grep -q '"expect": *"diagnose"' "$meta" && continue
	out="$work/$name.onnx"
	w=()
	[ -f "$c/weights.safetensors" ] && w=(--weights "$c/weights.safetensors")
	if ! msg=$(timeout "$tmo" "$onnxc" "$c/graph.txt" "${w[@]}" --opset 17 -o "$out" 2>&1); then
		fail=$((fail + 1))
		echo "FAIL $name: onnxc: $(printf '%s\n' "$msg" | grep -m1 error || printf '%s\n' "$msg" | head -n1)"
		continue
	fi
	if why=$("$py" -c '
import sys, onnx
m = onnx.load(sys.argv[1])
onnx.checker.check_model(m, full_check=True)
ops = [o.version for o in m.opset_import if o.domain in ("", "ai.onnx")]
if ops != [17]:
    sys.exit("default-domain opset_import is %s, expected [17]" % ops)
' "$out" 2>&1); then
		pass=$((pass + 1)); echo "PASS $name"
	else
		fail=$((fail + 1)); echo "FAIL $name: $(printf '%s\n' "$why" | tail -n1 | cut -c1-300)"
	fi
done < <(find -L "$cases" -name case.json | sort)
echo "$pass passed, $fail failed"
[ $fail = 0 ] && [ $pass -gt 0 ]
