#!/usr/bin/env bash
# The -O2 preset fuses HardSwish when it writes an .onnx (ONNX Runtime
# inlines the op's function body there) and not when it writes an .ort
# (ONNX Runtime has no HardSwish kernel); -O1 never does, and --passes
# runs the pass as written (off by default).
# usage: o2_hardswish.sh ONNXC
set -u
if [ $# -ne 1 ]; then
	echo "usage: $0 ONNXC" >&2
	exit 2
fi
onnxc=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# a hardswish inside the graph (a graph output keeps its own node)
cat >"$work/graph.txt" <<'DUMP'
ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, x: "f32[2, 3]"):
            hardswish: "f32[2, 3]" = torch.ops.aten.hardswish.default(x);  x = None
            neg: "f32[2, 3]" = torch.ops.aten.neg.default(hardswish);  hardswish = None
            return (neg,)

Graph signature:
    # inputs
    x: USER_INPUT

    # outputs
    neg: USER_OUTPUT

Range constraints: {}
DUMP
pass=0 fail=0
# the op's name is stored as text in both formats
has() { grep -q HardSwish "$1"; }
check() { # name, expect (yes|no), onnxc arguments...
	local name=$1 want=$2
	shift 2
	if ! "$onnxc" "$work/graph.txt" "$@"; then
		echo "FAIL $name: onnxc failed"
		fail=$((fail + 1))
		return
	fi
	local out=${*: -1} got=no
	has "$out" && got=yes
	if [ "$got" = "$want" ]; then
		echo "PASS $name"
		pass=$((pass + 1))
	else
		echo "FAIL $name: HardSwish written: $got, expected $want"
		fail=$((fail + 1))
	fi
}
check "-O2 .onnx" yes -O2 -o "$work/a.onnx"
check "-O2 .ort" no -O2 -o "$work/a.ort"
check "-O2 --emit ort" no -O2 --emit ort -o "$work/b.bin"
check "-O1 .onnx" no -O1 -o "$work/c.onnx"
check "--passes without the option" no --passes \
    "inline,functionalize,symbolize-shapes,lower,fuse-activations,dce" \
    -o "$work/d.onnx"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
