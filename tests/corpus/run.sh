#!/usr/bin/env bash
# Runs ../shared/tools/corpus-check on the corpus cases this version of onnxc
# must pass: every `expect: diagnose` case, and every `expect: pass` case
# with static shapes (empty "symbols", no "symbolize").  Dynamic cases are
# converted too and must fail with a diagnostic, never a crash.
# usage: tests/corpus/run.sh ONNXC CORPUS_DIR
set -u
onnxc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
corpus=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
check="$corpus/../tools/corpus-check"
static=(); dynamic=()
for c in "$corpus"/*/; do
  c=${c%/}
  [ -f "$c/case.json" ] || continue
  kind=$(node -e '
    const m = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const dyn = m.expect === "pass" && ((m.symbols || []).length > 0 || m.symbolize);
    console.log(dyn ? "dynamic" : "static");' "$c/case.json")
  if [ "$kind" = static ]; then static+=("$c"); else dynamic+=("$c"); fi
done
ORT_CHECK_CACHE="$top/tools" "$check" --onnxc "$onnxc" "${static[@]}"
rc=$?
crashed=0
for c in "${dynamic[@]}"; do
  w=(); [ -f "$c/weights.safetensors" ] && w=(--weights "$c/weights.safetensors")
  out=$(mktemp -d)
  "$onnxc" "$c/graph.txt" "${w[@]}" -o "$out/m.onnx" >/dev/null 2>"$out/err"; r=$?
  if [ $r -ne 0 ] && { [ $r -ne 1 ] || ! grep -q 'error:' "$out/err"; }; then
    echo "CRASH $(basename "$c"): exit $r"; crashed=$((crashed+1))
  fi
  rm -rf "$out"
done
echo "dynamic cases converted without a crash: $(( ${#dynamic[@]} - crashed )) of ${#dynamic[@]}"
[ $rc = 0 ] && [ $crashed = 0 ]
