#!/usr/bin/env bash
# The hostile archives (make_hostile.py) under limits: each must be refused
# with its error (tests/e2e/run_diagnose.sh checks the message, the exit
# code, that no output is left and that no sanitizer spoke) within
# HOSTILE_SECONDS (default 5) and HOSTILE_MB of peak memory (default 1024).
# usage: run.sh ONNXC [DIR]
set -u
onnxc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
dir=${2:-$here}
secs=${HOSTILE_SECONDS:-5} mb=${HOSTILE_MB:-1024}
command -v /usr/bin/time >/dev/null || { echo "run.sh: needs GNU time (/usr/bin/time)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# onnxc behind a wrapper that enforces both limits: a run over either is
# not the exit code the case expects, and says why on stderr
cat >"$work/onnxc" <<WRAP
#!/usr/bin/env bash
/usr/bin/time -f %M -o "$work/rss" timeout -s KILL $secs "$onnxc" "\$@"
rc=\$?
kb=\$(tail -n 1 "$work/rss" | tr -cd 0-9)
[ \$rc = 137 ] && { echo "hostile: killed after ${secs} s" >&2; exit 124; }
if [ -n "\$kb" ] && [ "\$kb" -gt $((mb * 1024)) ]; then
	echo "hostile: peak memory \$((kb / 1024)) MiB, over ${mb} MiB" >&2
	exit 98
fi
exit \$rc
WRAP
chmod +x "$work/onnxc"
E2E_TIMEOUT=$((secs + 5)) "$here/../e2e/run_diagnose.sh" "$work/onnxc" "$dir"
