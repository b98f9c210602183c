#!/usr/bin/env bash
# Rebuilds the seed corpora fuzz/corpus/<target>/ from the project's own test
# inputs: every tests/cases*/*/graph.txt seeds the dump, round-trip and lower
# targets, every weights file (and the hand-made bad ones) the safetensors
# target; the lower target also takes the small dumps of ../shared/corpus.
# Run it after adding test cases; the result is committed.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/fuzz/corpus
# only the folders made here: other targets' seeds are kept by hand
rm -rf "$out/dump" "$out/onnx_roundtrip" "$out/safetensors" "$out/lower"
mkdir -p "$out/dump" "$out/onnx_roundtrip" "$out/safetensors" "$out/lower"
for d in "$top"/tests/cases*/*/; do
	d=${d%/}
	name=$(basename "$(dirname "$d")")_$(basename "$d")
	if [ -f "$d/graph.txt" ]; then
		cp "$d/graph.txt" "$out/dump/$name.txt"
		cp "$d/graph.txt" "$out/onnx_roundtrip/$name.txt"
		cp "$d/graph.txt" "$out/lower/$name.txt"
	fi
	if [ -f "$d/weights.safetensors" ]; then
		cp "$d/weights.safetensors" "$out/safetensors/$name.safetensors"
	fi
done
shared=$top/../shared/corpus
if [ -d "$shared" ]; then
	for d in "$shared"/*/; do
		f=${d%/}/graph.txt
		# small ones only: libFuzzer mutates whole inputs
		[ -f "$f" ] && [ "$(stat -c %s "$f")" -le 6000 ] &&
			cp "$f" "$out/lower/shared_$(basename "$d").txt"
	done
fi
echo "seeds: $(ls "$out/dump" | wc -l) dumps, $(ls "$out/safetensors" | wc -l) weights files"

# .pt2 archives: the test archives (good and malformed) seed the zip and
# pt2 targets; the pickle target's seeds are kept by hand
rm -rf "$out/zip" "$out/pt2"
mkdir -p "$out/zip" "$out/pt2"
for f in "$top"/tests/pt2/*.pt2 "$top"/tests/pt2/*/model.pt2 "$top"/tests/pt2/bad/*/model.pt2; do
	name=$(echo "${f#"$top"/tests/pt2/}" | tr / _)
	cp "$f" "$out/zip/$name"
	cp "$f" "$out/pt2/$name"
done
echo "seeds: $(ls "$out/pt2" | wc -l) archives"
