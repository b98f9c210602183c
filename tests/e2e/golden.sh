#!/usr/bin/env bash
# Byte-identity guard: converts every case under the given folders in ONNX and
# .ort form (default pipeline, the case's own flags) and compares the sha256 of
# each output with a committed list, so a change meant to keep behaviour (a
# refactoring) proves it did.  A case onnxc refuses is listed as "exit-N".
# usage: golden.sh [--update] ONNXC LIST ROOT DIR...
#   LIST  the digests, one "SHA256  KEY" a line, KEY = CASE:FORM with CASE the
#         case folder relative to ROOT (so the list does not depend on where
#         the checkout or the corpus lies)
#   --update  rewrites LIST instead of comparing (only when a change of
#         output is the point; say so in the commit)
# Cases are folders with case.json and graph.txt; a small weights file that
# names another ("../X/weights.safetensors", the exports' __core cases) is
# followed.  Outputs hold no absolute path of the machine that made them:
# only the dump's own '# File:' comments, which do not depend on the checkout.
# Prints each differing key, then a count; exit 1 on a difference, 2 on bad
# usage.
set -u
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
update=0
[ "${1:-}" = --update ] && { update=1; shift; }
if [ $# -lt 4 ]; then
	echo "usage: $0 [--update] ONNXC LIST ROOT DIR..." >&2
	exit 2
fi
onnxc=$1 list=$2 root=$(cd "$3" && pwd)
shift 3
[ -x "$onnxc" ] || { echo "golden: '$onnxc' is not an executable onnxc" >&2; exit 2; }
command -v node >/dev/null || { echo "golden: node (Node.js) is not installed" >&2; exit 2; }
[ $update = 1 ] || [ -f "$list" ] || { echo "golden: no list '$list'" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

weights() {  # CASE_DIR -> the weights file to pass, if any
	local f=$1/weights.safetensors
	[ -f "$f" ] || return 1
	if [ "$(stat -c %s "$f")" -lt 256 ] && head -c 3 "$f" | grep -q '^\.\./'; then
		f=$(cd "$1" && realpath "$(cat "$f")")
	fi
	echo "$f"
}

for d in "$@"; do  # before the pipeline, whose parts cannot stop the script
	[ -d "$d" ] || { echo "golden: '$d' is not a folder" >&2; exit 2; }
done
for d in "$@"; do
	find -L "$(cd "$d" && pwd)" -name case.json -printf '%h\n' | sort
done | node "$here/compare.js" --plan | while IFS=$'\x1e' read -r c kind why argstr; do
	# one Node process reads every case.json (compare.js --plan)
	[ "$kind" = error ] && { echo "golden: $c: $why" >&2; exit 2; }
	[ -f "$c/graph.txt" ] || continue
	key=${c#"$root"/}
	a=()
	w=$(weights "$c") && a=(--weights "$w")
	if [ -n "$argstr" ]; then
		IFS=$'\x1f' read -r -a more <<<"$argstr"
		a+=("${more[@]}")
	fi
	for form in onnx ort; do
		out=$work/out.$form
		rm -f "$out"
		if timeout 120 "$onnxc" "$c/graph.txt" "${a[@]}" -o "$out" \
			>/dev/null 2>&1; then
			printf '%s  %s\n' "$(sha256sum <"$out" | cut -d' ' -f1)" "$key:$form"
		else
			printf 'exit-%s  %s\n' "$?" "$key:$form"
		fi
	done
done >"$work/now" || exit 2

if [ $update = 1 ]; then
	cp "$work/now" "$list"
	echo "golden: wrote $(wc -l <"$list") digests to $list"
	exit 0
fi
# a key of both lists with another digest is a difference; a case the list
# does not know yet (the corpus grew) or no longer finds is only reported
join -j2 <(sort -k2 "$list") <(sort -k2 "$work/now") -o 0,1.1,2.1 >"$work/both"
bad=$(awk '$2 != $3' "$work/both")
same=$(awk '$2 == $3' "$work/both" | wc -l)
new=$(join -j2 -v2 <(sort -k2 "$list") <(sort -k2 "$work/now") | wc -l)
gone=$(join -j2 -v1 <(sort -k2 "$list") <(sort -k2 "$work/now") | wc -l)
[ -z "$bad" ] || printf '%s\n' "$bad" | awk '{print "differs: " $1 " (was " $2 ", now " $3 ")"}'
echo "golden: $same same, $(printf '%s' "$bad" | grep -c .) differ, $new not listed, $gone not found"
[ -z "$bad" ]
