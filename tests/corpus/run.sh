#!/usr/bin/env bash
# Runs ../shared/tools/corpus-check on every case of the shared corpus: each
# `expect: pass` case must match PyTorch in ONNX Runtime on every sample (the
# `symbolize` ones at sizes the dump was not traced at), each `expect:
# diagnose` case must convert or refuse with an error: diagnostic.  Then the
# same in ONNX Runtime's .ort format.
# usage: tests/corpus/run.sh ONNXC CORPUS_DIR
set -u
onnxc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
corpus=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
check="$corpus/../tools/corpus-check"
export ORT_CHECK_CACHE="$top/tools"   # our pinned onnxruntime-node
"$check" --onnxc "$onnxc" "$corpus"
rc=$?
"$check" --onnxc "$onnxc" --emit ort "$corpus" || rc=1
exit $rc
