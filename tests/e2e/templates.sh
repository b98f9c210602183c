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

# the list: kind template from the templates pass; an op with a rule is no template
run --list-lowerings
has "$out" '^aten::special_logit\.default +template +templates pass$' list
has "$out" '^aten::poisson_nll_loss\.default +template +templates pass$' list
grep -qE '^aten::logit\.default .* template' <<<"$out" && bad "list: logit (a rule) as a template"
[ "$(grep -c ' template ' <<<"$out")" -ge 10 ] || bad "list: fewer than 10 template ops"

# the report
run "$cases/tpl_logit/graph.txt" -o "$tmp/a.onnx" --report "$tmp/r.md"
[ $rc = 0 ] || bad "report: rc $rc: $out"
has "$(cat "$tmp/r.md")" '`aten.special_logit.default` \| 2 \| template \(templates pass\)' report

# eps 0.25: no template has it, so the op is unsupported (not logit with another eps)
sed 's/special_logit.default(xs_0, 1e-06)/special_logit.default(xs_0, 0.25)/' \
	"$cases/tpl_logit/graph.txt" >"$tmp/eps.txt"
run "$tmp/eps.txt" -o "$tmp/b.onnx"
[ $rc = 1 ] || bad "eps 0.25: rc $rc"
has "$out" "5:42: error: unsupported operator 'aten::special_logit.default'" "eps 0.25"

# a folder's template comes first: special_logit (no eps) as sigmoid, through special_expit,
# which has a template of its own (nested)
mkdir -p "$tmp/d"
sed 's/torch.ops.aten.logit.default(ts_0)/torch.ops.aten.special_expit.default(ts_0)/' \
	"$fx/aten.special_logit.default.0.fx" >"$tmp/d/mine.fx"
run "$cases/tpl_logit/graph.txt" -o "$tmp/c.onnxtxt" --emit text --passes="$pipe"
[ $rc = 0 ] || bad "dir: rc $rc: $out"
has "$(cat "$tmp/c.onnxtxt")" 'Sigmoid' "dir (nested special_expit -> sigmoid)"

# a template that calls its own op: the depth guard, not a loop
sed 's/torch.ops.aten.logit.default(ts_0)/torch.ops.aten.special_logit.default(ts_0)/' \
	"$fx/aten.special_logit.default.0.fx" >"$tmp/d/mine.fx"
run "$cases/tpl_logit/graph.txt" -o "$tmp/d.onnx" --passes="$pipe"
[ $rc = 1 ] || bad "self: rc $rc"
has "$out" 'error: \[templates\] templates nest more than 16 deep at aten::special_logit' self

# malformed: a body the frontend refuses, then a header that is not one
sed 's/torch.ops.aten.logit.default(ts_0)/torch.ops.aten.logit.default(ts_0/' \
	"$fx/aten.special_logit.default.0.fx" >"$tmp/d/mine.fx"
run "$cases/tpl_logit/graph.txt" -o "$tmp/e.onnx" --passes="$pipe"
[ $rc = 1 ] || bad "malformed body: rc $rc"
has "$out" "template $tmp/d/mine.fx:8:[0-9]+: error: expected" "malformed body"
has "$out" "cannot be read: a malformed or foreign template" "malformed body"
printf '# onnxc template aten::special_logit.default\n# arg zero self tensor\n' >"$tmp/d/mine.fx"
run "$cases/tpl_logit/graph.txt" -o "$tmp/f.onnx" --passes="$pipe"
[ $rc = 1 ] || bad "malformed header: rc $rc"
has "$out" "template $tmp/d/mine.fx: its header is not" "malformed header"
printf '# onnxc template aten::special_logit.default\n# arg 0 self tensor\n' >"$tmp/d/mine.fx"
head -c 3000 /dev/urandom | tr -d '\000' >>"$tmp/d/mine.fx"
run "$cases/tpl_logit/graph.txt" -o "$tmp/g.onnx" --passes="$pipe"
[ $rc = 1 ] || bad "random body: rc $rc"
has "$out" "cannot be read" "random body"
run "$cases/tpl_logit/graph.txt" -o "$tmp/h.onnx" --passes="templates{dir=$tmp/none},lower"
[ $rc = 1 ] || bad "no folder: rc $rc"
has "$out" "cannot open the folder" "no folder"

[ $fail = 0 ] && echo "templates: ok"
exit $fail
