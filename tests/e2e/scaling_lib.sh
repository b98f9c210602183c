# Sourced by the scaling tests (tests/e2e/scaling.sh, tests/hostile/
# scaling.sh): CPU time of a command, and the verdict on N against 2N.

# best_cpu RUNS CMD...: the least user CPU seconds of RUNS runs of CMD (its
# output dropped, its stderr in $work/err).  System time is left out: it is
# mostly the kernel zeroing fresh pages, which varies with the host's memory
# (up to 3x between runs of one binary here), not with our algorithms.
best_cpu() {
	local runs=$1 best="" t k
	shift
	for ((k = 0; k < runs; k++)); do
		t=$( { TIMEFORMAT='%3U'; time "$@" >/dev/null 2>"$work/err"; } 2>&1 | awk '{print $1}')
		[ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN{exit !(a < b)}' && best=$t
	done
	echo "$best"
}

# judge WHAT N A B: PASS when B (the time at 2N) is at most 2.5 A (+50 ms
# of noise); a quadratic step gives about 4x.  Status 1 on FAIL.
judge() {
	if awk -v a="$3" -v b="$4" 'BEGIN{exit !(b <= 2.5 * a + 0.05)}'; then
		echo "PASS $1: $2 ${3}s, $(($2 * 2)) ${4}s"
	else
		echo "FAIL $1: $2 ${3}s, $(($2 * 2)) ${4}s (more than 2.5x)"
		return 1
	fi
}
