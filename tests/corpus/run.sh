#!/usr/bin/env bash
# Runs ../shared/tools/corpus-check on every case of the shared corpus and of
# the real exports (../shared/exports: dumps, and .pt2 archives), in ONNX and
# .ort form, and PyTorch's OpInfo samples (../shared/opinfo: every case's
# dump, with tests/e2e/run_cases.sh; their archives are left to
# corpus-check --pt2 by hand, to keep CI under 45 minutes), after checking that every output is byte-identical to the one
# tests/corpus/golden.sha256 lists (tests/e2e/golden.sh).  A failing case
# that stands on tests/corpus/known-failures (a glob over "torch-VERSION/CASE:FORM" and the issue that will fix it) is
# reported as KNOWN without failing the run; any other failure fails it.
# usage: tests/corpus/run.sh ONNXC SHARED_DIR
set -u
onnxc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shared=$(cd "$2" && pwd)
top=$(cd "$(dirname "$0")/../.." && pwd)
check="$shared/tools/corpus-check"
known="$top/tests/corpus/known-failures"
export ORT_CHECK_CACHE="$top/tools"   # our pinned onnxruntime-node
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rc=0

# The exports' __core cases name their parent's weights in a small text file
# ("../X/weights.safetensors"): mirror each case with real links.
mirror() {  # SRC_DIR DST_DIR
  local c f t
  for c in "$1"/*/; do
    c=${c%/}; mkdir -p "$2/${c##*/}"
    for f in "$c"/*; do
      t=$f
      if [ "$(stat -c %s "$f")" -lt 256 ] && head -c 3 "$f" | grep -q '^\.\./'; then
        t=$(cd "$c" && realpath "$(cat "$f")")
      fi
      ln -s "$t" "$2/${c##*/}/${f##*/}"
    done
  done
}

is_known() {  # KEY -> prints the issue, status 0 when listed
  local pat issue
  [ -f "$known" ] || return 1
  while read -r pat issue _; do
    case $pat in ''|'#'*) continue;; esac
    # shellcheck disable=SC2053
    [[ $1 == $pat ]] && { echo "$issue"; return 0; }
  done < "$known"
  return 1
}

check() {  # LABEL PREFIX FORM ARGS... : run corpus-check, sort failures into known and new
  local label=$1 prefix=$2 form=$3
  shift 3
  echo "== corpus-check $label"
  sort_failures "$prefix" "$form" "$("$check" --onnxc "$onnxc" "$@" 2>&1)"
}

sort_failures() {  # PREFIX FORM OUTPUT : 'FAIL NAME[:] why' lines into known and new
  local prefix=$1 form=$2 out=$3 line name issue
  printf '%s\n' "$out" | grep -v '^FAIL ' || true
  while IFS= read -r line; do
    name=$(echo "$line" | awk '{print $2}')
    name=${name%:}
    if issue=$(is_known "$prefix$name:$form"); then
      echo "KNOWN ($issue) $prefix$name:$form: ${line#FAIL }"
    else
      echo "$line"; rc=1
    fi
  done < <(printf '%s\n' "$out" | grep '^FAIL ')
}

echo "== golden outputs (tests/corpus/golden.sha256)"
"$top/tests/e2e/golden.sh" "$onnxc" "$top/tests/corpus/golden.sha256" "$shared" \
  "$shared/corpus" "$shared/exports" || rc=1
check "corpus (onnx)" corpus/ dump "$shared/corpus"
check "corpus (ort)" corpus/ dump --emit ort "$shared/corpus"
if [ -d "$shared/exports" ]; then
  for v in "$shared"/exports/torch-*/; do
    v=${v%/}; v=${v##*/}
    mirror "$shared/exports/$v" "$work/$v"
    for emit in onnx ort; do
      check "exports $v dumps ($emit)" "$v/" dump --emit $emit "$work/$v"
      check "exports $v .pt2 ($emit)" "$v/" pt2 --pt2 --emit $emit "$work/$v"
    done
  done
fi
# The OpInfo samples (2,000+) with tests/e2e/run_cases.sh: the same check as
# corpus-check (the case layout, case.json's tolerances, ONNX Runtime for
# Node) in one Node process for them all, where corpus-check starts one per
# case (20 minutes of a 2-core CI run); its compare.js also reads uint64
# outputs (hash_tensor), which ort-compare.js cannot.
if [ -d "$shared/opinfo" ]; then
  echo "== run_cases.sh opinfo dumps (onnx)"
  out=$("$top/tests/e2e/run_cases.sh" "$onnxc" "$shared/opinfo" 2>&1)
  sort_failures opinfo/ dump "$out"
  grep -Eq '^[0-9]+ passed, [0-9]+ failed$' <<<"$out" ||
    { echo "FAIL run_cases.sh stopped before its summary"; rc=1; }
fi
exit $rc
