#!/usr/bin/env bash
# tests/e2e/int_div_zero.js on onnxc's conversion of edge_int_div_guard (training IR and core
# forms): integer division by 0 or -1 must not kill ONNX Runtime.
# usage: int_div_zero.sh ONNXC CASES_DIR
set -u
[ $# -eq 2 ] || { echo "usage: $0 ONNXC CASES_DIR" >&2; exit 2; }
onnxc=$1 cases=$2
here=$(cd "$(dirname "$0")" && pwd)
export NODE_PATH="$here/../../tools/node_modules${NODE_PATH:+:$NODE_PATH}"
node -e 'require("onnxruntime-node")' >/dev/null 2>&1 ||
	{ echo "int_div_zero: onnxruntime-node is missing (tools/install.sh)" >&2; exit 2; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
rc=0
for c in edge_int_div_guard edge_int_div_guard__core; do
	"$onnxc" "$cases/$c/graph.txt" -o "$tmp/$c.onnx" || { echo "FAIL $c: onnxc"; rc=1; continue; }
	if node "$here/int_div_zero.js" "$tmp/$c.onnx"; then
		echo "PASS $c"
	else
		echo "FAIL $c: exit $?"
		rc=1
	fi
done
exit $rc
