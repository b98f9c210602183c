#!/usr/bin/env bash
# The Python package (python/onnxc) in real PyTorch: tests/python/test_onnxc.py
# inside ../shared/tools/torch-env (Debian's torch 2.14, onnx, onnxruntime in
# a chroot), with the onnxc of this build.  Sets the environment up when it
# is not yet (idempotent; ~5 minutes the first time).  Without ../shared, or
# without root or sudo -n for the chroot, it says so and skips (exit 0); a
# failing test or setup fails (exit 1).
# usage: tests/python/run.sh ONNXC [SHARED]
set -u
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: $0 ONNXC [SHARED]" >&2
	exit 2
fi
top=$(cd "$(dirname "$0")/../.." && pwd)
onnxc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shared=${2:-$top/../shared}
env=$shared/tools/torch-env
if [ ! -x "$env" ]; then
	echo "python tests skipped: no $shared/tools/torch-env beside the checkout"
	exit 0
fi
case $onnxc in
"$top"/*) ;;
*) echo "python tests: $onnxc must lie in the checkout ($top), which" \
	"torch-env mounts" >&2; exit 2 ;;
esac
[ -x "$onnxc" ] || { echo "python tests: no program $onnxc" >&2; exit 2; }
# torch-env mounts and chroots: root, or sudo without a password
if [ "$(id -u)" = 0 ]; then
	te=("$env")
elif sudo -n true 2>/dev/null; then
	te=(sudo -n "$env")
else
	echo "python tests skipped: torch-env needs root (or sudo -n)"
	exit 0
fi
cd "$top"
"${te[@]}" setup 2.14 || {
	echo "python tests: torch-env setup failed" >&2
	exit 1
}

# torch-env binds this folder into its chroot once and keeps the mount: one
# left by an earlier checkout at this path (since removed) would hide this
# one, so an old bind of it is dropped and torch-env binds it afresh
croot=${TORCH_ENV_DIR:-/var/cache/torch-env/2.14}
if mountpoint -q "$croot$top" && ! [ "$croot$top" -ef "$top" ]; then
	if [ "$(id -u)" = 0 ]; then umount -l "$croot$top"; else sudo -n umount -l "$croot$top"; fi
fi

# the program was built here; the chroot must have the libraries it links
missing=$("${te[@]}" run 2.14 ldd "$onnxc" | awk '/not found/ {print $1}')
if [ -n "$missing" ]; then
	pkgs=
	for lib in $missing; do
		case $lib in
		libz.so.*) pkgs="$pkgs zlib1g" ;;
		libprotobuf-c.so.*) pkgs="$pkgs libprotobuf-c1" ;;
		*) echo "python tests: the chroot lacks $lib, which $onnxc needs" >&2
		   exit 1 ;;
		esac
	done
	echo "python tests: installing$pkgs in the chroot for $onnxc"
	"${te[@]}" run 2.14 env DEBIAN_FRONTEND=noninteractive apt-get install -y \
	    -qq --no-install-recommends $pkgs >/dev/null || exit 1
fi

# onnx and onnxruntime in one process print a 'Schema error' per ONNX-ML
# op (Debian builds both with the schemas); it is noise, not a failure
"${te[@]}" run 2.14 env ONNXC="$onnxc" PYTHONDONTWRITEBYTECODE=1 \
    python3 tests/python/test_onnxc.py 2>&1 |
    grep -v -e '^Schema error: Trying to register schema' -e '^$'
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] || exit 1
