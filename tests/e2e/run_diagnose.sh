#!/usr/bin/env bash
# Runs onnxc on inputs it must refuse and checks how it refuses them.
# usage: run_diagnose.sh ONNXC DIR [NAME_REGEX]
# Each folder under DIR is one case:
#   expect.txt   line 1: the exit code; every further non-empty line: a Perl regex that must match
#                somewhere in stderr (so two lines check that both of two errors are reported), or
#                '!' and a regex that must match nowhere in stderr (no follow-on errors)
#   args         optional: onnxc's arguments, one per line; @DIR@ is the case folder, @OUT@ the
#                output path.  Default: @DIR@/graph.txt [--weights @DIR@/weights.safetensors] -o @OUT@
#   graph.txt, weights.safetensors   the inputs
# A failing run must leave no output file behind and must not be a sanitizer report.
# Prints 'PASS name' or 'FAIL name: why', then 'N passed, N failed'; exit 1 if any failed.
set -u
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
	echo "usage: $0 ONNXC DIR [NAME_REGEX]" >&2
	exit 2
fi
onnxc=$1 dir=$2 filter=${3:-}
[ -x "$onnxc" ] || { echo "run_diagnose: '$onnxc' is not an executable onnxc" >&2; exit 2; }
[ -d "$dir" ] || { echo "run_diagnose: '$dir' is not a folder" >&2; exit 2; }
tmo=${E2E_TIMEOUT:-60}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0 fail=0
for c in "$dir"/*/; do
	c=${c%/}
	name=$(basename "$c")
	[ -f "$c/expect.txt" ] || continue
	if [ -n "$filter" ] && ! [[ $name =~ $filter ]]; then
		continue
	fi
	out="$work/$name.onnx"
	args=()
	if [ -f "$c/args" ]; then
		while IFS= read -r a || [ -n "$a" ]; do
			a=${a//@DIR@/$c}
			args+=("${a//@OUT@/$out}")
		done < "$c/args"
	else
		args=("$c/graph.txt")
		[ -f "$c/weights.safetensors" ] && args+=(--weights "$c/weights.safetensors")
		args+=(-o "$out")
	fi
	want=$(head -n1 "$c/expect.txt" | tr -d '[:space:]')
	timeout "$tmo" "$onnxc" "${args[@]}" >"$work/stdout" 2>"$work/stderr"
	rc=$?
	why=""
	if [ "$rc" != "$want" ]; then
		why="exit $rc, expected $want"
	elif grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' "$work/stderr"; then
		why="sanitizer report"
	elif [ "$rc" != 0 ] && [ -e "$out" ]; then
		why="exit $rc but the output file was left behind"
	else
		while IFS= read -r re; do
			[ -z "$re" ] && continue
			if [ "${re:0:1}" = '!' ]; then
				if grep -qP -- "${re:1}" "$work/stderr"; then
					why="stderr matches /${re:1}/: $(grep -m1 -P -- "${re:1}" "$work/stderr" | cut -c1-200)"
					break
				fi
			elif ! grep -qP -- "$re" "$work/stderr"; then
				why="stderr does not match /$re/"
				break
			fi
		done < <(tail -n +2 "$c/expect.txt")
	fi
	if [ -z "$why" ]; then
		pass=$((pass + 1)); echo "PASS $name"
	else
		fail=$((fail + 1))
		echo "FAIL $name: $why; stderr: $(head -n1 "$work/stderr" | cut -c1-200)"
	fi
	rm -f "$out"
done
echo "$pass passed, $fail failed"
[ $fail = 0 ] && [ $pass -gt 0 ]
