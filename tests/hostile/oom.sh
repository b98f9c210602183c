#!/usr/bin/env bash
# Out of memory is an input error, not an abort: onnxc under a small
# address-space limit (ulimit -v) on an archive that needs more (200,000
# range constraints, gen_big.py) must say 'error: out of memory', exit 1
# and leave no output.  Not for sanitizer builds, which reserve terabytes.
# usage: oom.sh ONNXC
set -u
onnxc=$1
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$here/gen_big.py" "$work/big.pt2" ranges 200000 || exit 1
fail=0
for kb in 60000 90000; do
	(ulimit -v $kb; exec "$onnxc" "$work/big.pt2" -o "$work/out.onnx") 2>"$work/err"
	rc=$?
	if [ $rc != 1 ] || ! grep -q "big.pt2: error: out of memory" "$work/err"; then
		echo "FAIL ulimit -v $kb: exit $rc: $(head -c 300 "$work/err")"; fail=1
	elif ls "$work" | grep -q onnx; then
		echo "FAIL ulimit -v $kb: output left behind: $(ls "$work")"; fail=1
	else
		echo "PASS ulimit -v $kb: $(head -n1 "$work/err" | cut -c1-120)"
	fi
done
exit $fail
