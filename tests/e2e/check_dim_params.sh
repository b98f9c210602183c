#!/usr/bin/env bash
# Converts every case under CASES_DIR whose case.json has "dim_params" and checks the dims of the
# model's graph inputs and outputs: each dim_param string and dim_value exactly as listed
# (check_dim_params.py).  onnxc gets the case's weights and the arguments case.json asks for
# ("symbolize" -> --dynamic NAME:DIM=LABEL, then "flags").
# usage: check_dim_params.sh ONNXC CASES_DIR [NAME_REGEX]
# Needs python3 with the onnx package (Debian: python3-onnx); without it prints why and exits 77
# (ctest reports the test as skipped).  Cases with "expect": "diagnose" are left out.
# Prints 'PASS name' or 'FAIL name: why', then 'N passed, N failed'; exit 1 if any failed or none
# was checked.
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
	echo "usage: $0 ONNXC CASES_DIR [NAME_REGEX]" >&2
	exit 2
fi
onnxc=$1 cases=$2 filter=${3:-}
[ -x "$onnxc" ] || { echo "check_dim_params: '$onnxc' is not an executable onnxc" >&2; exit 2; }
[ -d "$cases" ] || { echo "check_dim_params: '$cases' is not a folder" >&2; exit 2; }
py=""
for p in ${PYTHON:-} python3 /usr/bin/python3; do
	if command -v "$p" >/dev/null && "$p" -c 'import onnx' >/dev/null 2>&1; then
		py=$p
		break
	fi
done
if [ -z "$py" ]; then
	echo "check_dim_params: skipped: no python3 with the onnx package (apt-get install python3-onnx)"
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
	grep -q '"dim_params"' "$meta" || continue
	out="$work/$name.onnx"
	w=()
	[ -f "$c/weights.safetensors" ] && w=(--weights "$c/weights.safetensors")
	if ! args=$("$py" "$here/check_dim_params.py" --args "$c" 2>&1); then
		fail=$((fail + 1)); echo "FAIL $name: $args"; continue
	fi
	while IFS= read -r f; do
		[ -n "$f" ] && w+=("$f")
	done <<<"$args"
	if ! msg=$(timeout "$tmo" "$onnxc" "$c/graph.txt" "${w[@]}" -o "$out" 2>&1); then
		fail=$((fail + 1))
		echo "FAIL $name: onnxc: $(printf '%s\n' "$msg" | grep -m1 error || printf '%s\n' "$msg" | head -n1)"
		continue
	fi
	if why=$("$py" "$here/check_dim_params.py" "$out" "$c" 2>&1); then
		pass=$((pass + 1)); echo "PASS $name"
	else
		fail=$((fail + 1)); echo "FAIL $name: $(printf '%s\n' "$why" | head -n3 | paste -sd';' | cut -c1-400)"
	fi
done < <(find -L "$cases" -name case.json | sort)
echo "$pass passed, $fail failed"
[ $fail = 0 ] && [ $pass -gt 0 ]
