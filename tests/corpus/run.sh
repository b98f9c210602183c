#!/usr/bin/env bash
# Runs ../shared/tools/corpus-check on every case of the shared corpus and of
# the real exports (../shared/exports: dumps, and .pt2 archives), in ONNX and
# .ort form, and PyTorch's OpInfo samples (../shared/opinfo: every case's
# dump; their archives are left to corpus-check --pt2 by hand, to keep CI
# under 45 minutes), after checking that every output is byte-identical to the one
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
  local label=$1 prefix=$2 form=$3 out line name issue
  shift 3
  echo "== corpus-check $label"
  out=$("$check" --onnxc "$onnxc" "$@" 2>&1)
  printf '%s\n' "$out" | grep -v '^FAIL ' || true
  while IFS= read -r line; do
    name=$(echo "$line" | awk '{print $2}')
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
if [ -d "$shared/opinfo" ]; then
  check "opinfo dumps (onnx)" opinfo/ dump "$shared/opinfo"
fi
exit $rc
