#!/bin/sh
# check.sh CC INCLUDE_DIR - build tests/sdk/headers.c against the installed
# plugin headers under each C standard a plugin author may pick, warnings as
# errors, and run it.
set -eu
cc=$1 inc=$2
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for std in "-std=c99 -pedantic" -std=gnu99 "-std=c11 -pedantic" -std=gnu11; do
	# shellcheck disable=SC2086
	if ! "$cc" $std -Wall -Wextra -Werror -I"$inc" "$dir/headers.c" \
	    -o "$tmp/h" 2>"$tmp/err"; then
		echo "FAIL $std: does not compile"; cat "$tmp/err"; status=1
	elif ! out=$("$tmp/h"); then
		echo "FAIL $std: exit $?"; status=1
	else
		echo "ok $std: $out"
	fi
done
exit $status
