#!/usr/bin/env bash
# Outputs never clobber and never litter; inputs never hang (issue 25):
# -o an input (dump, weights, plugin) is refused and the input unchanged;
# -o through a symbolic link writes its target and keeps the link; an
# existing FIFO or device is written into, not replaced; a 250-character
# name works; SIGTERM, SIGINT, SIGHUP and SIGKILL mid-write leave nothing;
# a FIFO as GRAPH or --weights is refused at once; weights truncated during
# conversion are an error, not a signal; stdout write errors are errors.
# Processes are stopped at a known point with ONNXC_TEST_STOP (out.c) and
# waited for by their state, never by a sleep that races them.
# usage: outputs.sh ONNXC GENLINEAR BUILD_DIR
set -u
if [ $# -ne 3 ]; then
	echo "usage: $0 ONNXC GENLINEAR BUILD_DIR" >&2
	exit 2
fi
onnxc=$1 gen=$2 build=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0 fail=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1: $2"; fail=$((fail + 1)); }

# a small model (8 KiB of weights, buffered) and one of 2 MiB (kernel copy)
mkdir -p "$work/s" "$work/b"
"$gen" "$work/s" 32 64 && "$gen" "$work/b" 512 1024 || exit 1
S="$work/s/graph.txt --weights $work/s/weights.safetensors"
B="$work/b/graph.txt --weights $work/b/weights.safetensors"
"$onnxc" $S -o "$work/ref_s.onnx" && "$onnxc" $B -o "$work/ref_b.onnx" ||
	exit 1

# the files of a folder other than those named, or nothing
others() {
	local d=$1
	shift
	(cd "$d" && ls -A | grep -vxF "$(printf '%s\n' "$@")")
}

# run NAME CODE REGEX -- ARGS: exit CODE, stderr matching REGEX (ERE)
run() {
	local name=$1 code=$2 re=$3
	shift 4
	local rc
	timeout 20 "$onnxc" "$@" >"$work/out.txt" 2>"$work/err.txt"
	rc=$?
	if [ "$rc" != "$code" ]; then
		bad "$name" "exit $rc, expected $code: $(head -c 300 "$work/err.txt")"
		return 1
	fi
	if [ -n "$re" ] && ! grep -Eq -- "$re" "$work/err.txt"; then
		bad "$name" "stderr lacks /$re/: $(head -c 300 "$work/err.txt")"
		return 1
	fi
	return 0
}

# -- -o an input: refused, the input unchanged --------------------------
d=$work/same
mkdir -p "$d"
cp "$work/s/graph.txt" "$work/s/weights.safetensors" "$d/"
cp "$d/graph.txt" "$d/graph.orig"
cp "$d/weights.safetensors" "$d/weights.orig"
ln -s weights.safetensors "$d/wlink"
unchanged() {
	cmp -s "$d/graph.txt" "$d/graph.orig" &&
	    cmp -s "$d/weights.safetensors" "$d/weights.orig" &&
	    [ -z "$(others "$d" graph.txt weights.safetensors graph.orig \
	    weights.orig wlink m.onnx.data p.so p.orig)" ]
}
for o in graph.txt weights.safetensors wlink; do
	if run "same-file $o" 1 "cannot write .*is the input" -- \
	    "$d/graph.txt" --weights "$d/weights.safetensors" -o "$d/$o"; then
		unchanged && ok "same-file $o" ||
		    bad "same-file $o" "an input changed or a file was left"
	fi
done
# the external data file may not be an input either
cp "$d/weights.safetensors" "$d/m.onnx.data"
run "same-file data" 1 "cannot write .*m.onnx.data.*is the input" -- \
    "$d/graph.txt" --weights "$d/m.onnx.data" -o "$d/m.onnx" \
    --external-data && [ ! -e "$d/m.onnx" ] &&
    cmp -s "$d/m.onnx.data" "$d/weights.orig" && ok "same-file data"
# a plugin module that is loaded
cp "$build/plugins/dce.so" "$d/p.so"
cp "$d/p.so" "$d/p.orig"
run "same-file plugin" 1 "cannot write .*p.so: it is the input" -- \
    $S --load-plugin "$d/p.so" -o "$d/p.so" &&
    cmp -s "$d/p.so" "$d/p.orig" && ok "same-file plugin"

# -- symbolic links: the target written, the link kept ------------------
d=$work/link
mkdir -p "$d/real"
echo old >"$d/real/m.onnx"
ln -s real/m.onnx "$d/l.onnx"
ln -s real/new.onnx "$d/dangling.onnx"
run "symlink" 0 "" -- $S -o "$d/l.onnx" && [ -L "$d/l.onnx" ] &&
    cmp -s "$d/real/m.onnx" "$work/ref_s.onnx" && ok "symlink"
run "dangling symlink" 0 "" -- $S -o "$d/dangling.onnx" &&
    [ -L "$d/dangling.onnx" ] && cmp -s "$d/real/new.onnx" "$work/ref_s.onnx" &&
    [ -z "$(others "$d/real" m.onnx new.onnx)" ] && ok "dangling symlink"

# -- FIFO and device outputs: written into, not replaced ----------------
d=$work/fifo
mkdir -p "$d"
mkfifo "$d/f"
cat "$d/f" >"$d/got" &
reader=$!
run "fifo output" 0 "" -- $B -o "$d/f"
wait $reader
[ -p "$d/f" ] && cmp -s "$d/got" "$work/ref_b.onnx" && ok "fifo output" ||
	bad "fifo output" "replaced, or the bytes read differ"
run "/dev/null output" 0 "" -- $B -o /dev/null && [ -c /dev/null ] &&
    ok "/dev/null output"
# /dev/stdout into a pipe: its link reads "pipe:[N]", not a path
if timeout 20 "$onnxc" $B -o /dev/stdout 2>"$work/err.txt" |
    cmp -s - "$work/ref_b.onnx"; then
	ok "/dev/stdout pipe output"
else
	bad "/dev/stdout pipe output" "$(head -c 300 "$work/err.txt")"
fi
if [ "$(id -u)" = 0 ] && mknod "$d/null" c 1 3 2>/dev/null; then
	run "device output" 0 "" -- $S -o "$d/null" && [ -c "$d/null" ] &&
	    ok "device output"
else
	echo "SKIP device output: needs root to make a device node"
fi

# -- a 250-character name -----------------------------------------------
d=$work/long
mkdir -p "$d"
name=$(printf 'm%.0s' $(seq 245)).onnx
run "long name" 0 "" -- $S -o "$d/$name" && cmp -s "$d/$name" \
    "$work/ref_s.onnx" && [ -z "$(others "$d" "$name")" ] && ok "long name"

# -- killed mid-write: nothing left --------------------------------------
# wait until process $1 is stopped (state T), at most 20 s
stopped() {
	local i
	for i in $(seq 2000); do
		[ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" = T ] &&
		    return 0
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.01
	done
	return 1
}
# killed NAME SIGNAL FALLBACK [ARGS]: stop the conversion of the 2 MiB
# model after its first MiB, send SIGNAL; FALLBACK=1 forces the named
# temporary file (no O_TMPFILE), which must exist while stopped.
killed() {
	local name=$1 sig=$2 fb=$3 d=$work/kill_$1 pid rc want
	shift 3
	mkdir -p "$d"
	ONNXC_TEST_STOP=mid-write ONNXC_NO_TMPFILE=$([ "$fb" = 1 ] && echo 1) \
	    env --default-signal=INT "$onnxc" $B -o "$d/m.onnx" "$@" \
	    2>"$d/err" &
	pid=$!
	if ! stopped $pid; then
		bad "$name" "did not stop mid-write"
		kill -KILL $pid 2>/dev/null
		return
	fi
	local during
	during=$(others "$d" err)
	if [ "$fb" = 1 ] && [ -z "$during" ]; then
		bad "$name" "no temporary file while stopped mid-write"
	elif [ "$fb" != 1 ] && [ -n "$during" ]; then
		bad "$name" "named files while writing: $during"
	fi
	kill -"$sig" $pid
	kill -CONT $pid
	wait $pid 2>/dev/null
	rc=$?
	want=$((128 + $(kill -l "$sig")))
	left=$(others "$d" err)
	if [ "$rc" != "$want" ]; then
		bad "$name" "exit $rc, expected $want"
	elif [ -n "$left" ]; then
		bad "$name" "left behind: $left"
	else
		ok "$name"
	fi
}
killed sigterm TERM 0
killed sigkill KILL 0
killed sigkill_external KILL 0 --external-data
killed sigterm_fallback TERM 1
killed sigint_fallback INT 1
killed sighup_fallback HUP 1
killed sigterm_fallback_external TERM 1 --external-data

# -- FIFO inputs: refused at once ---------------------------------------
d=$work/fifoin
mkdir -p "$d"
mkfifo "$d/g" "$d/w"
run "fifo graph" 1 "is not a regular file \(it is a FIFO\)" -- "$d/g" \
    -o "$d/m.onnx" && ok "fifo graph"
run "fifo weights" 1 "not a regular file \(it is a FIFO\)" -- \
    "$work/s/graph.txt" --weights "$d/w" -o "$d/m.onnx" && ok "fifo weights"
run "directory graph" 1 "not a regular file \(it is a directory\)" -- \
    "$d" -o "$d/m.onnx" && ok "directory graph"

# -- weights truncated during conversion: an error ----------------------
# truncated NAME MODEL-DIR [ARGS]: stop before the first byte is written,
# cut the weights to 100 bytes, go on
truncated() {
	local name=$1 src=$2 d=$work/trunc_$1 pid rc
	shift 2
	mkdir -p "$d"
	cp "$src/graph.txt" "$src/weights.safetensors" "$d/"
	ONNXC_TEST_STOP=write "$onnxc" "$d/graph.txt" --weights \
	    "$d/weights.safetensors" -o "$d/m.onnx" "$@" 2>"$d/err" &
	pid=$!
	if ! stopped $pid; then
		bad "$name" "did not stop"
		kill -KILL $pid 2>/dev/null
		return
	fi
	truncate -s 100 "$d/weights.safetensors"
	kill -CONT $pid
	wait $pid
	rc=$?
	if [ "$rc" != 1 ]; then
		bad "$name" "exit $rc, expected 1: $(head -c 300 "$d/err")"
	elif ! grep -q "weights.safetensors changed during conversion" "$d/err"; then
		bad "$name" "no 'changed during conversion': $(head -c 300 "$d/err")"
	elif [ -n "$(others "$d" err graph.txt weights.safetensors)" ]; then
		bad "$name" "left behind: $(others "$d" err graph.txt weights.safetensors)"
	else
		ok "$name"
	fi
}
truncated truncated_mapped "$work/s"            # read through the mapping
truncated truncated_copied "$work/b"            # copied by the kernel
truncated truncated_external "$work/b" --external-data
truncated truncated_ort "$work/b" --emit ort

# -- standard output ----------------------------------------------------
for a in --help --version --print-ir; do
	if "$onnxc" $S $a >/dev/full 2>"$work/err.txt"; then
		bad "$a to /dev/full" "exit 0"
	elif grep -q "cannot write to standard output" "$work/err.txt"; then
		ok "$a to /dev/full"
	else
		bad "$a to /dev/full" "$(head -c 300 "$work/err.txt")"
	fi
done

# -- usage errors exit 2 ------------------------------------------------
for a in "--opset 999" "--opset x" "--external-data-threshold -1" \
    "--external-data-threshold 1k" "-O7"; do
	run "usage $a" 2 "error" -- $S -o "$work/u.onnx" $a &&
	    [ ! -e "$work/u.onnx" ] && ok "usage $a"
done

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
