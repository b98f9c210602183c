#!/usr/bin/env bash
# The archive reader in linear time: archives with N and 2N nameless nodes
# (names made up as FX does: relu, relu_1, ...) and with N and 2N range
# constraints (gen_big.py); the instructions the larger costs must be at most
# 2.5x the smaller's (counted by valgrind: see scaling_lib.sh).  Probing names from _1 each time, or a
# range table searched entry by entry, gives about 4x.
# usage: scaling.sh ONNXC [NODES] [RANGES]
set -u
onnxc=$1 nodes=${2:-20000} ranges=${3:-100000}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
. "$here/../e2e/scaling_lib.sh"
need_valgrind
for kn in nameless:$nodes ranges:$ranges; do
	kind=${kn%:*} n=${kn#*:}
	python3 "$here/gen_big.py" "$work/a.pt2" $kind $n &&
	python3 "$here/gen_big.py" "$work/b.pt2" $kind $((2 * n)) || { echo "FAIL $kind: cannot make archives"; fail=1; continue; }
	a=$(cost "$onnxc" "$work/a.pt2" -o "$work/a.onnx")
	b=$(cost "$onnxc" "$work/b.pt2" -o "$work/b.onnx")
	if ! [ -s "$work/a.onnx" ] || ! [ -s "$work/b.onnx" ]; then
		echo "FAIL $kind: no model written: $(head -c 300 "$work/err")"; fail=1
	else
		judge "$kind" $n "$a" "$b" || fail=1
	fi
done
exit $fail
