#!/usr/bin/env bash
# Installs the dependencies, builds onnxc into build/, and converts an
# example model, checking it in ONNX Runtime.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
tools/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
ex=tests/cases/mlp_relu_gelu
build/onnxc "$ex/graph.txt" --weights "$ex/weights.safetensors" -o build/example.onnx
echo "wrote build/example.onnx from $ex/graph.txt"
NODE_PATH="$top/tools/node_modules" node tests/e2e/compare.js build/example.onnx "$ex"
