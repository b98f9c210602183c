#!/usr/bin/env bash
# Each case of DIR (a folder with model.pt2, graph.txt and weights.safetensors,
# made by ../shared/tools/gen2) converts from its archive alone and from its
# dump with the weights to byte-identical .onnx and .ort files (but for the
# module stacks only an archive records: .onnx compared with --no-metadata).
# usage: archive_eq_dump.sh ONNXC DIR.  Prints PASS/FAIL lines; exit 1 on any FAIL.
set -u
onnxc=$1 dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
check() {  # WHAT COMMAND...: the command must succeed
	local what=$1; shift
	if ! "$@" 2>"$work/err"; then
		echo "FAIL $what: $(head -c 400 "$work/err")"; fail=1; return 1
	fi
}
for c in "$dir"/*/; do
	c=${c%/}; n=$(basename "$c")
	[ -f "$c/weights.safetensors" ] && [ -f "$c/model.pt2" ] || continue
	for e in onnx ort; do
		nm=(); [ $e = onnx ] && nm=(--no-metadata)
		check "$n archive ($e)" "$onnxc" "$c/model.pt2" "${nm[@]}" -o "$work/$n.a.$e" || continue
		check "$n dump ($e)" "$onnxc" "$c/graph.txt" --weights "$c/weights.safetensors" \
			"${nm[@]}" -o "$work/$n.d.$e" || continue
		if cmp -s "$work/$n.a.$e" "$work/$n.d.$e"; then
			echo "PASS $n: archive = dump ($e)"
		else
			echo "FAIL $n: archive and dump differ ($e)"; fail=1
		fi
	done
done
exit $fail
