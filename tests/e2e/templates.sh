#!/usr/bin/env bash
# The templates pass (passes/templates) beyond the numbers of tests/cases-templates: what
# --list-lowerings and --report say of a template op, a template whose scalar arguments do not
# match (the op stays unsupported, never a wrong number), a folder of templates (option dir=)
# tried first, templates that use templated ops (nested) or their own op (the depth guard), and
# malformed templates (a diagnostic naming the file and line, exit 1, no crash).
# Each case of tests/cases-templates converts from its archive to the bytes of its dump.
# usage: templates.sh ONNXC
set -u
onnxc=$1
here=$(cd "$(dirname "$0")" && pwd)
cases=$here/../cases-templates
fx=$here/../../passes/templates/fx
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
has() { grep -qE -- "$2" <<<"$1" || bad "$3: no /$2/ in: $(head -c 600 <<<"$1")"; }
run() { out=$("$onnxc" "$@" 2>&1); rc=$?; }
pipe="templates{dir=$tmp/d},decompose,symbolize-shapes,lower"

# each case from its archive: the same model as from its dump (the archive reader's scalar
# arguments match the templates' headers as the dump's do)
for c in "$cases"/*/; do
	c=${c%/}; n=$(basename "$c")
	[ -f "$c/model.pt2" ] || { bad "$n: no model.pt2"; continue; }
	run "$c/model.pt2" --no-metadata -o "$tmp/$n.a.onnx"
	[ $rc = 0 ] || { bad "$n archive: $out"; continue; }
	run "$c/graph.txt" --no-metadata -o "$tmp/$n.d.onnx"
	[ $rc = 0 ] || { bad "$n dump: $out"; continue; }
	cmp -s "$tmp/$n.a.onnx" "$tmp/$n.d.onnx" || bad "$n: archive and dump differ"
done

# every shipped template is itself a program the frontend reads (its header is comments) and onnxc
# converts with its symbolic sizes, but for rules that need static sizes (linalg_det), which the
# sizes a template binds in a static program are
for t in "$fx"/*.fx; do
	run "$t" -o "$tmp/t.onnx"
	[ $rc = 0 ] || grep -q 'static sizes' <<<"$out" || bad "$(basename "$t"): $out"
done

# the list: kind template from the templates pass; an op with a rule (or an alias the decompose
# pass names the target of) is no template
run --list-lowerings
has "$out" '^aten::frobenius_norm\.dim +template +templates pass$' list
has "$out" '^aten::_fused_rms_norm\.default +template +templates pass$' list
grep -qE '^aten::logit\.default .* template' <<<"$out" && bad "list: logit (a rule) as a template"
grep -qE '^aten::special_logit\.default .* template' <<<"$out" && bad "list: special_logit (an alias) as a template"
[ "$(grep -c ' template ' <<<"$out")" -ge 4 ] || bad "list: fewer than 4 template ops"

# the report
run "$cases/tpl_frobenius/graph.txt" -o "$tmp/a.onnx" --report "$tmp/r.md"
[ $rc = 0 ] || bad "report: rc $rc: $out"
has "$(cat "$tmp/r.md")" '`aten.frobenius_norm.dim` \| 1 \| template \(templates pass\)' report

# dims [0, 2]: no template has them, so the op is unsupported (not a norm over other dims)
sed 's/frobenius_norm.dim(xs_0, \[1, 2\])/frobenius_norm.dim(xs_0, [0, 2])/' \
	"$cases/tpl_frobenius/graph.txt" >"$tmp/dims.txt"
run "$tmp/dims.txt" -o "$tmp/b.onnx"
[ $rc = 1 ] || bad "dims [0, 2]: rc $rc"
has "$out" "5:[0-9]+: error: unsupported operator 'aten::frobenius_norm.dim'" "dims [0, 2]"

# a parameter (eps of _fused_rms_norm, "param" in its header) takes any number but 0 and +-1, where
# decompositions branch: eps 1.0 stays unsupported
grep -q '^# arg 3 eps float 1e-06 param$' "$fx/aten._fused_rms_norm.default.0.fx" || bad "param: header"
grep -q '_fused_rms_norm.default(xs_0, \[5\], xs_1, 0.125)' "$cases/tpl_param_eps/graph.txt" ||
	bad "param: tpl_param_eps has no eps 0.125"
sed 's/_fused_rms_norm.default(xs_0, \[5\], xs_1, 0.125)/_fused_rms_norm.default(xs_0, [5], xs_1, 1.0)/' \
	"$cases/tpl_param_eps/graph.txt" >"$tmp/one.txt"
run "$tmp/one.txt" -o "$tmp/one.onnx"
[ $rc = 1 ] || bad "eps 1.0: rc $rc"
has "$out" "error: unsupported operator 'aten::_fused_rms_norm.default'" "eps 1.0"

# a folder's template comes first: the norm over [1, 2] as the negated norm over [-2, -1], which
# the built-in templates have (nested)
mkdir -p "$tmp/d"
tpl=$fx/aten.frobenius_norm.dim.4.fx
grep -q '^# arg 1 dim ints 1,2$' "$tpl" || bad "dir: $tpl is not the [1, 2] template"
sed -e 's/norm.ScalarOpt_dim(ts_0, 2.0, \[1, 2\]);  ts_0 = None/frobenius_norm.dim(ts_0, [-2, -1]);  ts_0 = None\
            neg: "f32[tpl_s44]" = torch.ops.aten.neg.default(norm);  norm = None/' \
	-e 's/return (norm,)/return (neg,)/' -e 's/    norm: USER_OUTPUT/    neg: USER_OUTPUT/' \
	"$tpl" >"$tmp/d/mine.fx"
run "$cases/tpl_frobenius/graph.txt" -o "$tmp/c.onnxtxt" --emit text --passes="$pipe"
[ $rc = 0 ] || bad "dir: rc $rc: $out"
has "$(cat "$tmp/c.onnxtxt")" 'Neg' "dir (the folder's template, nested frobenius_norm [-2, -1])"

# a template that calls its own op: the depth guard, not a loop
sed 's/norm.ScalarOpt_dim(ts_0, 2.0, \[1, 2\])/frobenius_norm.dim(ts_0, [1, 2])/' "$tpl" >"$tmp/d/mine.fx"
run "$cases/tpl_frobenius/graph.txt" -o "$tmp/d.onnx" --passes="$pipe"
[ $rc = 1 ] || bad "self: rc $rc"
has "$out" 'error: \[templates\] templates nest more than 16 deep at aten::frobenius_norm' self

# malformed: a body the frontend refuses, then a header that is not one
sed 's/norm.ScalarOpt_dim(ts_0, 2.0, \[1, 2\])/norm.ScalarOpt_dim(ts_0, 2.0, [1, 2]/' "$tpl" \
	>"$tmp/d/mine.fx"
run "$cases/tpl_frobenius/graph.txt" -o "$tmp/e.onnx" --passes="$pipe"
[ $rc = 1 ] || bad "malformed body: rc $rc"
has "$out" "template $tmp/d/mine.fx:9:[0-9]+: error: expected" "malformed body"
has "$out" "cannot be read: a malformed or foreign template" "malformed body"
printf '# onnxc template aten::frobenius_norm.dim\n# arg zero self tensor\n' >"$tmp/d/mine.fx"
run "$cases/tpl_frobenius/graph.txt" -o "$tmp/f.onnx" --passes="$pipe"
[ $rc = 1 ] || bad "malformed header: rc $rc"
has "$out" "template $tmp/d/mine.fx: its header is not" "malformed header"
printf '# onnxc template aten::frobenius_norm.dim\n# arg 0 self tensor\n# arg 1 dim ints 1,2\n' \
	>"$tmp/d/mine.fx"
head -c 3000 /dev/urandom | tr -d '\000' >>"$tmp/d/mine.fx"
run "$cases/tpl_frobenius/graph.txt" -o "$tmp/g.onnx" --passes="$pipe"
[ $rc = 1 ] || bad "random body: rc $rc"
has "$out" "cannot be read" "random body"
run "$cases/tpl_frobenius/graph.txt" -o "$tmp/h.onnx" --passes="templates{dir=$tmp/none},lower"
[ $rc = 1 ] || bad "no folder: rc $rc"
has "$out" "cannot open the folder" "no folder"

[ $fail = 0 ] && echo "templates: ok"
exit $fail
