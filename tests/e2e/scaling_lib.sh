# Sourced by the scaling tests (tests/e2e/scaling.sh, tests/hostile/
# scaling.sh): the cost of a command, and the verdict on N against 2N.
#
# The cost is the count of instructions the program runs (valgrind's
# cachegrind, no cache simulation), not time: time on a shared 2-core
# machine moved by up to 3x between runs, and a hash table crossing the
# last-level cache's size costs more per entry in time but not in
# instructions, so time failed linear code now and then.  Counts repeat
# to the last digit.

# cost CMD...: instructions run by CMD (its output dropped, its stderr in
# $work/err); empty when valgrind fails.
cost() {
	valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
	    --log-file="$work/vg" "$@" >/dev/null 2>"$work/err" || return 0
	awk '/I *refs:/ {gsub(",", "", $NF); print $NF}' "$work/vg"
}

# need_valgrind: status 77 (skipped) with a reason when valgrind is missing.
need_valgrind() {
	command -v valgrind >/dev/null && return 0
	echo "SKIP: valgrind is not installed (tools/deps.sh installs it)"
	exit 77
}

# judge WHAT N A B: PASS when B (the count at 2N) is at most 2.5 A; a
# linear program gives about 2x, a quadratic step about 4x.  Status 1 on
# FAIL or when a count is missing.
judge() {
	if [ -z "$3" ] || [ -z "$4" ]; then
		echo "FAIL $1: no count (valgrind: $(tail -n 3 "$work/vg" 2>/dev/null))"
		return 1
	fi
	if awk -v a="$3" -v b="$4" 'BEGIN{exit !(b <= 2.5 * a)}'; then
		echo "PASS $1: $2 $3 instructions, $(($2 * 2)) $4 ($(awk -v a="$3" -v b="$4" 'BEGIN{printf "%.2fx", b / a}'))"
	else
		echo "FAIL $1: $2 $3 instructions, $(($2 * 2)) $4 (more than 2.5x)"
		return 1
	fi
}
