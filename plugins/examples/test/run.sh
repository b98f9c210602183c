#!/usr/bin/env bash
# The example translation plugin, end to end, as a user would build it:
#   1. install onnxc from BUILD_DIR into a temporary prefix (cmake --install);
#   2. configure and build plugins/examples as a separate CMake project
#      against that prefix (find_package(onnxc));
#   3. convert graph.txt (calls torch.ops.mylib.rms_norm.default) with the
#      installed onnxc and --load-plugin, and check the model in ONNX Runtime
#      against PyTorch's output (tests/e2e/compare.js), at opsets 17 and 18
#      (ReduceMean's axes moved from attribute to input at 18);
#   4. without the plugin, onnxc exits 1 with "unsupported operator";
#   5. the plugin module has no undefined onnxc symbol (nm -D).
# Prints PASS/FAIL per check, then 'N passed, N failed'; exit 1 on a failure,
# 2 on bad usage.  Set KEEP=DIR to keep the prefix, build and models.
# usage: plugins/examples/test/run.sh BUILD_DIR
set -u
if [ $# -ne 1 ] || [ ! -d "$1" ]; then
	echo "usage: $0 BUILD_DIR (an onnxc build folder)" >&2
	exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=$(cd "$1" && pwd)
work=${KEEP:-$(mktemp -d)}
mkdir -p "$work"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
export NODE_PATH="$root/tools/node_modules${NODE_PATH:+:$NODE_PATH}"
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "PASS $*"; }
ko() { fail=$((fail + 1)); echo "FAIL $*"; }
finish() {
	echo "$pass passed, $fail failed"
	[ $fail = 0 ]
	exit
}

prefix=$work/prefix
if cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 &&
    [ -x "$prefix/bin/onnxc" ]; then
	ok "install into a prefix"
else
	ko "install into a prefix: $(tail -n 3 "$work/install.log")"
	finish
fi

ex=$work/example
if cmake -S "$here/.." -B "$ex" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_BUILD_TYPE=Release >"$work/configure.log" 2>&1 &&
    cmake --build "$ex" >"$work/build.log" 2>&1; then
	ok "example builds against the installed SDK"
else
	ko "example builds against the installed SDK: $(grep -m1 -i error \
	    "$work/configure.log" "$work/build.log")"
	finish
fi
so=$(find "$ex" -maxdepth 2 -name '*mylib_rms_norm*.so' | head -n1)
if [ -z "$so" ]; then
	ko "the build made no mylib_rms_norm module"
	finish
fi

onnxc=$prefix/bin/onnxc
for opset in 17 18; do
	out=$work/m$opset.onnx
	if msg=$("$onnxc" "$here/graph.txt" \
	    --weights "$here/weights.safetensors" \
	    --load-plugin "$so" --opset $opset -o "$out" 2>&1) &&
	    why=$(node "$root/tests/e2e/compare.js" "$out" "$here" 2>&1); then
		ok "opset $opset: converts with the plugin," \
		    "matches PyTorch in ONNX Runtime"
	else
		ko "opset $opset:" \
		    "$(printf '%s\n' "$msg" "${why:-}" | grep -m1 .)"
	fi
	why=
done

msg=$("$onnxc" "$here/graph.txt" --weights "$here/weights.safetensors" \
    -o "$work/none.onnx" 2>&1)
rc=$?
if [ $rc = 1 ] && printf '%s\n' "$msg" |
    grep -q "unsupported operator 'mylib::rms_norm.default'"; then
	ok "without the plugin: exit 1, unsupported operator"
else
	ko "without the plugin: exit $rc: $(printf '%s\n' "$msg" | head -n1)"
fi

und=$(nm -D --undefined-only "$so" | grep -i onnxc)
if [ -z "$und" ] && nm -D --defined-only "$so" | grep -q ' onnxc_plugin$'; then
	ok "nm -D: exports onnxc_plugin, needs no onnxc symbol"
else
	ko "nm -D: undefined: ${und:-none}; onnxc_plugin exported?"
fi
finish
