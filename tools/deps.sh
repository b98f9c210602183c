#!/usr/bin/env bash
# Installs what onnxc needs to build and test, from Debian packages and npm,
# skipping what is already there.  Safe to run again.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)

# build: cmake, protobuf-c, zlib (.pt2 archives); tests: cmocka, python3-onnx (checker), node+npm
# (ONNX Runtime), flatc (decodes .ort files), GNU time (peak memory of the
# hostile-archive tests), valgrind (instruction counts of the scaling
# tests); fuzz: clang (libFuzzer ships with it)
pkgs="build-essential cmake pkg-config libprotobuf-c-dev protobuf-c-compiler
      libcmocka-dev python3 python3-onnx clang flatbuffers-compiler
      zlib1g-dev time valgrind"
missing=()
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# node may come from elsewhere than Debian (with its own npm): ask for the
# commands, not the packages
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# ONNX Runtime for Node, pinned by tools/package-lock.json; its CPU binaries
# ship inside the package, so no install scripts are needed
if [ ! -d "$top/tools/node_modules/onnxruntime-node" ]; then
  echo "deps: installing onnxruntime-node"
  (cd "$top/tools" && npm ci --ignore-scripts --no-audit --no-fund --silent)
fi
