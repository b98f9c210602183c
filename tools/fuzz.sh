#!/usr/bin/env bash
# Fuzzes every target in fuzz/ with libFuzzer for a bounded time.
# usage: tools/fuzz.sh [SECONDS] [TARGET...]
#   SECONDS  per target (default 20); CI uses a minute or less, the long
#            local run 600 or more
#   TARGET   dump, safetensors, onnx_roundtrip, ... (default: every
#            fuzz/<target>_fuzzer.c)
# Builds with clang, ASan and UBSan into build-fuzz/; with the pt2 target,
# also onnxc there, which then runs tests/hostile.  Seeds are
# fuzz/corpus/<target>/ and tests/regress/<target>/, plus the dumps and small
# weights files of ../shared/corpus when it exists, all copied into a
# temporary folder (the repository is never written, except below).  Prints
# the executions of each target; fails on any crash, leak, timeout or
# out-of-memory, after minimizing each input that caused one into
# tests/regress/<target>/, where the replay tests pick it up.
# FUZZ_KEEP_GOING=1 fuzzes on after a crash (libFuzzer's fork mode) to
# collect every distinct problem of a long run.  FUZZ_CFLAGS adds compiler
# flags (e.g. -fno-sanitize=... to look past a known, reported problem).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
secs=${1:-20}
shift || true
targets=("$@")
if [ ${#targets[@]} = 0 ]; then
  for f in fuzz/*_fuzzer.c; do
    f=${f#fuzz/}
    targets+=("${f%_fuzzer.c}")
  done
fi
case $secs in
''|*[!0-9]*) echo "usage: $0 [SECONDS] [TARGET...]" >&2; exit 2 ;;
esac
command -v clang >/dev/null || { echo "fuzz.sh: needs clang" >&2; exit 2; }

build=build-fuzz
cmake -S . -B $build -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_C_FLAGS=-O1 -DONNXC_FUZZ_FLAGS="${FUZZ_CFLAGS:-}" -DONNXC_SANITIZE=ON -DONNXC_FUZZ=ON \
  -DBUILD_TESTING=OFF >/dev/null || exit 1
bins=()
for t in "${targets[@]}"; do bins+=("${t}_fuzzer"); done
if ! cmake --build $build -j"$(nproc)" --target "${bins[@]}" >$build/log 2>&1; then
  cat $build/log
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
shared=$top/../shared/corpus
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
status=0
summary=""
for t in "${targets[@]}"; do
  bin=$build/fuzz/${t}_fuzzer
  corpus=$work/$t
  art=$work/$t-artifacts
  mkdir -p "$corpus" "$art"
  cp fuzz/corpus/"$t"/* "$corpus"/
  [ -d tests/regress/"$t" ] && cp tests/regress/"$t"/* "$corpus"/ 2>/dev/null
  case $t in
  pt2|zip)
    # structure-aware seeds: the hostile archives (many dims, bombs,
    # stride-0 views, deep subgraphs, layouts, names, ...) and small
    # archives of nameless nodes and many range constraints
    for f in tests/hostile/*/model.pt2; do
      n=$(basename "$(dirname "$f")")
      # the pickle ones fill the unpickler's budget on purpose: slow runs
      case $n in pickle_objects|pickle_list) continue ;; esac
      [ "$(stat -c %s "$f")" -le 65536 ] && cp "$f" "$corpus/hostile_$n.pt2"
    done
    python3 tests/hostile/gen_big.py "$corpus/gen_nameless.pt2" nameless 64 &&
      python3 tests/hostile/gen_big.py "$corpus/gen_ranges.pt2" ranges 64 ;;
  esac
  if [ -d "$shared" ]; then
    for d in "$shared"/*/; do
      n=$(basename "$d")
      case $t in
      safetensors)
        # small files only: libFuzzer mutates whole inputs
        f=$d/weights.safetensors
        [ -f "$f" ] && [ "$(stat -c %s "$f")" -le 65536 ] &&
          cp "$f" "$corpus/shared_$n.safetensors" ;;
      dump|onnx_roundtrip|lower)
        [ -f "$d/graph.txt" ] && cp "$d/graph.txt" "$corpus/shared_$n.txt" ;;
      esac
    done
  fi
  echo "== fuzzing $t for ${secs}s ($(ls "$corpus" | wc -l) seeds)"
  more=()
  [ "${FUZZ_KEEP_GOING:-0}" = 1 ] &&
    more=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  "$bin" "${more[@]}" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -dict=fuzz/"$t".dict -artifact_prefix="$art"/ -print_final_stats=1 \
    "$corpus" >"$work/$t.log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t.log" | tail -n1)
  # fork mode prints no final stats: its last status line has the total
  [ -z "$execs" ] && execs=$(sed -n 's/^#\([0-9]*\):.*/\1/p' "$work/$t.log" | tail -n1)
  summary="$summary$t: ${execs:-?} executions in ${secs}s, exit $rc"$'\n'
  if [ $rc != 0 ] || [ -n "$(ls "$art")" ]; then
    status=1
    grep -E 'ERROR|SUMMARY|fuzz:|runtime error|==[0-9]+==' "$work/$t.log" | head -n 20
    mkdir -p tests/regress/"$t"
    n=0
    for a in "$art"/*; do
      # fork mode may leave many inputs of one bug: minimize a few
      n=$((n + 1))
      [ $n -gt 5 ] && break
      [ -f "$a" ] || continue
      dest=tests/regress/$t/$(basename "$a")
      echo "-- minimizing $(basename "$a") into $dest"
      "$bin" -minimize_crash=1 -max_total_time=60 -timeout=10 \
        -exact_artifact_path="$dest" "$a" >"$work/$t.min.log" 2>&1
      [ -s "$dest" ] || cp "$a" "$dest"
    done
  fi
done
# The hostile archives once more, through an onnxc built by clang with its
# ASan and UBSan (which see what GCC's do not, e.g. pointer overflow)
if [ -d tests/hostile ] && [[ " ${targets[*]} " == *" pt2 "* ]]; then
  echo "== tests/hostile with clang's ASan + UBSan"
  if cmake --build $build -j"$(nproc)" --target onnxc >$build/log 2>&1; then
    tests/hostile/run.sh $build/onnxc >"$work/hostile.log" 2>&1
    rc=$?
    tail -n 1 "$work/hostile.log"
    [ $rc = 0 ] || { grep -v '^PASS' "$work/hostile.log" | head -n 20; status=1; }
    summary="${summary}hostile archives under clang ASan+UBSan: exit $rc"$'\n'
  else
    cat $build/log; status=1
  fi
fi
printf '%s' "$summary"
[ $status = 0 ] && echo "fuzzing found nothing" || echo "FUZZING FOUND PROBLEMS"
exit $status
