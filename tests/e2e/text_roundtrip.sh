#!/usr/bin/env bash
# --emit text against ONNX: converts every case under the given folders to
# .onnx and .onnxtxt with the same flags (the case's own), and
# text_roundtrip.py reads the text back with onnx.parser and compares it
# with the ONNX model.  Cases with weights are also written with
# --external-data (the two data files must be byte-identical), with
# --keep-initializers-as-inputs and with --no-weights.  A case onnxc refuses in ONNX is skipped.
# The parser must read node names in [] and quoted names (onnx 1.16 and
# later): python3 if its onnx does, else ../shared/tools/torch-env's (as
# root or with sudo -n); neither: exit 77 (skipped).
# usage: text_roundtrip.sh ONNXC WORK DIR...
#   WORK  a folder for the models (emptied; it stays, so that torch-env's
#         bind of it does not outlive it)
set -u
export LC_ALL=C
if [ $# -lt 3 ]; then
	echo "usage: $0 ONNXC WORK DIR..." >&2
	exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
onnxc=$1 work=$2
shift 2
[ -x "$onnxc" ] || { echo "text: '$onnxc' is not an executable" >&2; exit 2; }
command -v node >/dev/null || { echo "skipped: no node for compare.js"; exit 77; }
mkdir -p "$work" && work=$(cd "$work" && pwd) || exit 2
rm -rf "${work:?}"/*
cp "$here/text_roundtrip.py" "$work/"

# a python whose onnx parses onnxc's text
py=()
for p in python3 /usr/bin/python3; do
	if "$p" "$work/text_roundtrip.py" --probe >/dev/null 2>&1; then
		py=("$p")
		break
	fi
done
env=$here/../../../shared/tools/torch-env
if [ ${#py[@]} = 0 ] && [ -x "$env" ]; then
	if [ "$(id -u)" = 0 ]; then te=("$env"); else te=(sudo -n "$env"); fi
	if (cd "$work" && "${te[@]}" run 2.14 python3 text_roundtrip.py \
		--probe) >/dev/null 2>&1; then
		py=("${te[@]}" run 2.14 python3)
	fi
fi
if [ ${#py[@]} = 0 ]; then
	echo "skipped: no onnx whose parser reads node names in [] (1.16+)"
	exit 77
fi

weights() {  # CASE_DIR -> the weights file to pass, if any (as golden.sh)
	local f=$1/weights.safetensors
	[ -f "$f" ] || return 1
	if [ "$(stat -c %s "$f")" -lt 256 ] && head -c 3 "$f" | grep -q '^\.\./'; then
		f=$(cd "$1" && realpath "$(cat "$f")")
	fi
	echo "$f"
}

names=() fail=0
convert() {  # NAME ARGS... -> both forms, or a failure
	local n=$1
	shift
	timeout 120 "$onnxc" "$@" -o "$work/$n.onnx" >/dev/null 2>&1 || return 0
	if ! timeout 120 "$onnxc" "$@" -o "$work/$n.onnxtxt" >"$work/$n.err" 2>&1
	then
		echo "$n: --emit text failed where ONNX did not:"
		sed 's/^/   /' "$work/$n.err"
		fail=1
		return 0
	fi
	names+=("$n")
}
for d in "$@"; do
	[ -d "$d" ] || { echo "text: '$d' is not a folder" >&2; exit 2; }
	for meta in $(find -L "$(cd "$d" && pwd)" -name case.json | sort); do
		c=$(dirname "$meta")
		[ -f "$c/graph.txt" ] || continue
		n=$(basename "$c")
		a=("$c/graph.txt")
		w=$(weights "$c") && a+=(--weights "$w")
		args=$(node "$here/compare.js" --args "$c") || exit 2
		while IFS= read -r f; do [ -n "$f" ] && a+=("$f"); done <<<"$args"
		convert "$n" "${a[@]}"
		[ -n "${w:-}" ] || continue
		convert "${n}__ext" "${a[@]}" --external-data \
			--external-data-threshold 64
		if [ -f "$work/${n}__ext.onnx.data" ] && ! cmp -s \
			"$work/${n}__ext.onnx.data" "$work/${n}__ext.onnxtxt.data"
		then
			echo "${n}__ext: the data files differ"
			fail=1
		fi
		convert "${n}__inputs" "${a[@]}" --keep-initializers-as-inputs
		convert "${n}__noweights" "${a[@]}" --no-weights
	done
done
[ ${#names[@]} -gt 0 ] || { echo "text: no case converted" >&2; exit 1; }
(cd "$work" && "${py[@]}" text_roundtrip.py . "${names[@]}") || fail=1
exit $fail
