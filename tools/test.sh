#!/usr/bin/env bash
# Runs every test: unit and end-to-end tests on a normal build, then the same
# under AddressSanitizer + UBSan, each fuzz target for a bounded time, then
# the shared corpus when ../shared is beside the checkout.  Exits non-zero if
# anything failed.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
tools/deps.sh
jobs=$(nproc)

# ONNX Runtime leaves an empty mat-debug-PID.log in $TMPDIR for every process
# that opens a session (its telemetry's debug log): the tests' temporary files
# go to one folder, removed at the end
scratch=$(mktemp -d "${TMPDIR:-/tmp}/onnxc-tests.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
export TMPDIR=$scratch
status=0

run() { echo "== $*"; "$@" || status=1; }

# ../shared's torch-env (real PyTorch, onnx 1.20) first: e2e.text_roundtrip
# reads models back with its onnx (Debian's 1.12 cannot), and
# tests/python/run.sh runs in it; setting up is idempotent (~5 min once)
te=$top/../shared/tools/torch-env
if [ -x "$te" ]; then
  if [ "$(id -u)" = 0 ]; then run "$te" setup 2.14
  elif sudo -n true 2>/dev/null; then run sudo -n "$te" setup 2.14
  fi
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$jobs" 2>&1 | grep -E 'warning:|error:' && status=1
run ctest --test-dir build --output-on-failure -j"$jobs"

cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DONNXC_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$jobs" 2>&1 | grep -E 'warning:|error:' && status=1
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  run ctest --test-dir build-asan --output-on-failure -j"$jobs"

# Fuzz every target in fuzz/ for a bounded time (clang + libFuzzer, ASan +
# UBSan); a crash, leak or timeout fails the run and is minimized into
# tests/regress/<target>/.
if command -v clang >/dev/null; then
  run tools/fuzz.sh 15
else
  echo "== fuzzing skipped: no clang (the fuzz.* tests replayed the corpus)"
fi

if [ -d "$top/../shared/corpus" ]; then
  run tests/corpus/run.sh build/onnxc "$top/../shared"
fi
run tests/python/run.sh build/onnxc "$top/../shared"

# a test that leaves a temporary file behind fails the run (ONNX Runtime's own
# debug logs excepted)
left=$(find "$scratch" -mindepth 1 -maxdepth 1 ! -name 'mat-debug-*.log' ! -name .ses)
if [ -n "$left" ]; then
  echo "== temporary files the tests left behind:"; echo "$left"; status=1
fi
[ $status = 0 ] && echo "all tests passed" || echo "SOME TESTS FAILED"
exit $status
