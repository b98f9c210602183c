#!/usr/bin/env bash
# Installs the dependencies, builds onnxc into build/, and converts an
# example model, checking it in ONNX Runtime; ends with what it checked.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
tools/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
ex=tests/cases/mlp_relu_gelu
build/onnxc "$ex/graph.txt" --weights "$ex/weights.safetensors" -o build/example.onnx
echo "wrote build/example.onnx from $ex/graph.txt"
NODE_PATH="$top/tools/node_modules" node tests/e2e/compare.js -v build/example.onnx "$ex"
echo "from Python: PYTHONPATH=$top/python, then import onnxc (README.md, From Python)"
echo "ok: built build/onnxc; converted $ex and ran it in ONNX Runtime:" \
    "its outputs match PyTorch's (tolerance in $ex/case.json)"
