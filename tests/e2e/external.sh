#!/usr/bin/env bash
# External data (issue 24), on small models so that it runs in seconds:
# initializers of at least --external-data-threshold bytes go to
# OUT.data, the rest stay inline; offsets are aligned (64 KiB from 1 MiB
# up, 64 bytes below); ONNX Runtime (Node) loads the model from its folder
# and computes what the weights say; onnx.load reads it; failures leave
# neither file.  Models over 2 GB are tools/bench.sh's.
# usage: external.sh ONNXC GENLINEAR SOURCE_DIR
set -u
if [ $# -ne 3 ]; then
	echo "usage: $0 ONNXC GENLINEAR SOURCE_DIR" >&2
	exit 2
fi
onnxc=$1 gen=$2 src=$(cd "$3" && pwd) || exit 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export NODE_PATH="$src/tools/node_modules${NODE_PATH:+:$NODE_PATH}"
pass=0 fail=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1: $2"; fail=$((fail + 1)); }
py=
for p in /usr/bin/python3 python3; do
	$p -c 'import onnx' 2>/dev/null && { py=$p; break; }
done
node -e "require('onnxruntime-node')" 2>/dev/null && have_ort=1 || have_ort=
[ -n "$py" ] || echo "note: no python3 with onnx: layout checks skipped"
[ -n "$have_ort" ] || echo "note: no onnxruntime-node: runs skipped"

# layout NAME MODEL 'TENSOR=OFFSET:LENGTH|inline'...: each initializer's
# place, and the data file holding exactly the weights' bytes there
layout() {
	local name=$1 model=$2
	shift 2
	[ -n "$py" ] || return 0
	local why
	why=$("$py" - "$model" "$@" <<'EOF'
import os, sys, onnx
from onnx import numpy_helper
path, want = sys.argv[1], dict(a.split("=") for a in sys.argv[2:])
m = onnx.load(path, load_external_data=False)
full = onnx.load(path)        # onnx's own reader of external data
vals = {t.name: numpy_helper.to_array(t) for t in full.graph.initializer}
for t in m.graph.initializer:
    ext = {e.key: e.value for e in t.external_data}
    got = "inline" if not ext else "%s:%s" % (ext["offset"], ext["length"])
    if want.get(t.name) != got:
        sys.exit("%s is %s, expected %s" % (t.name, got, want.get(t.name)))
    if ext:
        if ext["location"] != os.path.basename(path) + ".data":
            sys.exit("%s: location %s" % (t.name, ext["location"]))
        with open(os.path.join(os.path.dirname(path), ext["location"]),
                  "rb") as f:
            f.seek(int(ext["offset"]))
            b = f.read(int(ext["length"]))
        if b != vals[t.name].tobytes():
            sys.exit("%s: the data file's bytes differ" % t.name)
EOF
	) && return 0
	bad "$name" "$why"
	return 1
}

# runs NAME MODEL IN OUT: ONNX Runtime, from another folder
runs() {
	[ -n "$have_ort" ] || return 0
	local why
	why=$(cd / && node "$src/tools/check_linear.js" "$2" "$3" "$4" 2>&1) &&
	    return 0
	bad "$1" "$why"
	return 1
}

mkdir -p "$work/a" "$work/b"
"$gen" "$work/a" 100 30 && "$gen" "$work/b" 512 1024 --bias-first || exit 1
A="$work/a/graph.txt --weights $work/a/weights.safetensors"
B="$work/b/graph.txt --weights $work/b/weights.safetensors"

# mixed: the 12000-byte weight external, the 120-byte bias inline (1024)
d=$work/mixed
mkdir -p "$d"
"$onnxc" $A -o "$d/m.onnx" --external-data &&
    [ "$(stat -c %s "$d/m.onnx.data")" = 12000 ] &&
    layout mixed "$d/m.onnx" fc.weight=0:12000 fc.bias=inline &&
    runs mixed "$d/m.onnx" 100 30 && ok mixed || bad mixed "see above"

# threshold 0: everything external, the bias after the weight on 64 bytes
d=$work/all
mkdir -p "$d"
"$onnxc" $A -o "$d/m.onnx" --external-data --external-data-threshold 0 &&
    [ "$(stat -c %s "$d/m.onnx.data")" = $((12032 + 120)) ] &&
    layout threshold-0 "$d/m.onnx" fc.weight=0:12000 fc.bias=12032:120 &&
    runs threshold-0 "$d/m.onnx" 100 30 && ok threshold-0 ||
    bad threshold-0 "see above"

# a threshold above every tensor: no data file at all
d=$work/none
mkdir -p "$d"
"$onnxc" $A -o "$d/m.onnx" --external-data --external-data-threshold 99999 &&
    [ ! -e "$d/m.onnx.data" ] &&
    layout threshold-high "$d/m.onnx" fc.weight=inline fc.bias=inline &&
    ok threshold-high || bad threshold-high "see above"

# a tensor of 1 MiB or more starts on 64 KiB: the 4096-byte bias first
d=$work/align
mkdir -p "$d"
"$onnxc" $B -o "$d/m.onnx" --external-data --external-data-threshold 0 &&
    layout align-64k "$d/m.onnx" fc.bias=0:4096 fc.weight=65536:2097152 &&
    runs align-64k "$d/m.onnx" 512 1024 && ok align-64k ||
    bad align-64k "see above"

# without the flag a small model is one file; --no-external-data too
d=$work/inline
mkdir -p "$d"
"$onnxc" $A -o "$d/m.onnx" && "$onnxc" $A -o "$d/n.onnx" --no-external-data &&
    [ -z "$(ls "$d" | grep data)" ] && cmp -s "$d/m.onnx" "$d/n.onnx" &&
    layout inline "$d/m.onnx" fc.weight=inline fc.bias=inline &&
    ok inline || bad inline "see above"

# .ort has no external data: asking for it is a usage error
"$onnxc" $A -o "$work/m.ort" --external-data 2>"$work/err"
rc=$?
[ "$rc" = 2 ] && grep -q "external data" "$work/err" && [ ! -e "$work/m.ort" ] &&
    ok ort-refuses || bad ort-refuses "exit $rc: $(cat "$work/err")"

# failures leave neither file: the data file's name taken by a folder,
# and the model's
d=$work/fail1
mkdir -p "$d/m.onnx.data"
"$onnxc" $A -o "$d/m.onnx" --external-data 2>"$work/err"
rc=$?
[ "$rc" = 1 ] && grep -q "cannot write .*m.onnx.data" "$work/err" &&
    [ "$(ls -A "$d")" = m.onnx.data ] && ok fail-data ||
    bad fail-data "exit $rc, $(ls -A "$d"): $(cat "$work/err")"
d=$work/fail2
mkdir -p "$d/m.onnx"
"$onnxc" $A -o "$d/m.onnx" --external-data 2>"$work/err"
rc=$?
[ "$rc" = 1 ] && [ "$(ls -A "$d")" = m.onnx ] && ok fail-model ||
    bad fail-model "exit $rc, $(ls -A "$d"): $(cat "$work/err")"
# a model replaced keeps nothing of the old data file's place but the new
d=$work/replace
mkdir -p "$d"
echo old >"$d/m.onnx"
echo old >"$d/m.onnx.data"
"$onnxc" $A -o "$d/m.onnx" --external-data &&
    layout replace "$d/m.onnx" fc.weight=0:12000 fc.bias=inline &&
    [ "$(ls -A "$d" | tr '\n' ' ')" = "m.onnx m.onnx.data " ] &&
    ok replace || bad replace "$(ls -A "$d")"

# text (--emit text): more than 16 MB of tensors inline is an error naming
# --external-data, leaving no file; with it, the data file is the ONNX
# writer's, byte for byte, and the text names it
d=$work/text
mkdir -p "$d/big"
"$gen" "$d/big" 1024 4200 >/dev/null || bad text-gen "genlinear failed"
"$onnxc" "$d/big/graph.txt" --weights "$d/big/weights.safetensors" \
	-o "$d/m.onnxtxt" 2>"$work/err"
rc=$?
[ "$rc" = 1 ] && grep -q "over the 16 MB.*--external-data" "$work/err" &&
    [ -z "$(ls -A "$d" | grep -v big)" ] && ok text-refuses ||
    bad text-refuses "exit $rc, $(ls -A "$d"): $(cat "$work/err")"
B="$d/big/graph.txt --weights $d/big/weights.safetensors --external-data"
"$onnxc" $B -o "$d/m.onnxtxt" 2>"$work/err" &&
    "$onnxc" $B -o "$d/m.onnx" 2>>"$work/err" &&
    cmp -s "$d/m.onnx.data" "$d/m.onnxtxt.data" &&
    grep -q '"fc.weight" = \["location": "m.onnxtxt.data", "offset": "0", "length": "17203200"\]' \
	"$d/m.onnxtxt" && ok text-external ||
    bad text-external "$(ls -A "$d"): $(cat "$work/err")"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
