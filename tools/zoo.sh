#!/usr/bin/env bash
# A stand-in for held-out models: a wide sweep of real architectures and of
# the ways model code calls PyTorch (tests/gen/zoo/*.py: transformers
# decoders (transformers 5 too), encoders, MoE, state-space, audio and vision models with tiny
# configs, torchvision models of dynamic sizes, video, optical-flow and
# detection models, nn modules with masks, model and library code exported
# with dynamic sizes (masks, caches, windows, box ops, batched linalg),
# Python-number arguments, partial multi-output reads, vmap, fake
# quantization, half precision, integer and dtype semantics), exported with real PyTorch in
# ../shared/tools/torch-env, then converted and checked in ONNX Runtime
# (tests/e2e/run_cases.sh: training IR and core forms).  Not run by CI: it
# needs torch-env (set up once, ~5 min) and ~10 minutes.
# usage: tools/zoo.sh [ONNXC] [OUT]     (defaults: build/onnxc, .zoo)
#   OUT lies under the checkout (torch-env sees only the current folder
#   and ../shared); it is made anew.  ZOO_MODULES picks modules (default
#   all), ZOO_FLAGS passes onnxc flags (e.g. "-O2").  Exit 1 if a case
#   fails; the known ones are listed at the end of this file's output.
set -u
cd "$(dirname "$0")/.."
onnxc=${1:-build/onnxc}
out=${2:-.zoo}
env=../shared/tools/torch-env
[ -x "$env" ] || { echo "zoo: $env is missing" >&2; exit 2; }
mods=${ZOO_MODULES:-"cases_zoo cases_zoo2 cases_zoo3 cases_zoo4 cases_user cases_user2 cases_user3 cases_user4 cases_user5 cases_user6 cases_user7 cases_user8 cases_user9 cases_user10 cases_user11 cases_user12 cases_scalars cases_mods cases_misc cases_vmap cases_dynhw cases_dtypes"}
rm -rf "$out" && mkdir -p "$out"
for m in $mods; do
	PYTHONPATH=$PWD/tests/gen/zoo:$PWD/tests/gen "$env" run 2.14 \
	    python3 ../shared/tools/gen2/gen.py "$out/$m" "$m" >"$out/$m.log" 2>&1
	echo "$m: $(grep -c '^ok' "$out/$m.log") exported, $(grep -c '^FAIL' "$out/$m.log") not exportable by torch"
done
rc=0
for m in $mods; do
	[ -d "$out/$m" ] || continue
	E2E_FLAGS=${ZOO_FLAGS:-} NODE_PATH=$PWD/tools/node_modules \
	    tests/e2e/run_cases.sh "$onnxc" "$out/$m" >"$out/$m.run" 2>&1 || rc=1
	echo "$m: $(tail -1 "$out/$m.run")"
	grep '^FAIL' "$out/$m.run" | cut -c1-220
done
exit $rc
