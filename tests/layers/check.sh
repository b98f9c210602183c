#!/usr/bin/env bash
# The layering, checked on the sources (README, Architecture):
# - plugins/ (the plugin host) includes nothing of lower/, pipeline/ or
#   passes/; lower/ and pipeline/ include of plugins/ only the header it
#   publishes (plugins/pl.h);
# - passes/ (the built-in passes, plugin modules) includes nothing of the
#   host: only the SDK (<onnxc/...>), its own files and the op tables
#   (ir/*.def);
# - no mutable state outside a function's frame in lower/, pipeline/ or
#   passes/ (no static variable that is not const): what a run needs
#   travels in its context;
# - op facts live in the op tables: the checker (lower/check*.c) and the
#   functionalize pass's view list (passes/functionalize/views.c) name no
#   "aten::" overload of their own, the driver no pass and no pass option;
# - plugin code is called in one place: only plugins/host.c hands out
#   pl_host (pl_invoke), nothing else calls a pass's, lowering's, init's
#   or fini's function pointer;
# - no source file outside tests/ is over 1,000 lines, and none of lower/,
#   pipeline/, passes/ or plugins/ over 800; tables (*.def) are exempt.
# usage: check.sh SOURCE_ROOT.  Prints each breach; exit 1 if any.
set -u
top=${1:?usage: check.sh SOURCE_ROOT}
cd "$top" || exit 2
bad=0
breach() { echo "layers: $*"; bad=1; }
while IFS= read -r l; do
	breach "plugins/ includes lower/, pipeline/ or passes/: $l"
done < <(grep -rnE '#include "[^"]*(lower|pipeline|passes)/' plugins)
while IFS= read -r l; do
	breach "lower/ or pipeline/ includes more of plugins/ than pl.h: $l"
done < <(grep -rn '#include "[^"]*plugins/' lower pipeline |
	grep -v '"\.\./plugins/pl\.h"')
while IFS= read -r l; do
	breach "passes/ includes the host: $l"
done < <(grep -rnE '#include "\.\./' passes | grep -vE '"(\.\./)+ir/[a-z_]+\.def"')
while IFS= read -r l; do
	breach "mutable static state: $l"
done < <(grep -rnE '^\s*static\s+[^()]*[;=]' lower pipeline passes \
	--include='*.c' --include='*.h' | grep -vE ':\s*static\s+(inline\s+)?const\b')
while IFS= read -r l; do
	breach "an op named outside the op tables: $l"
done < <(grep -nE '"aten::[A-Za-z_]' lower/check*.c passes/functionalize/views.c)
while IFS= read -r l; do
	breach "the driver names a pass: $l"
done < <(grep -nE '"(inline|functionalize|decompose|symbolize-shapes|fold|cse|dce|lower|fuse-[a-z-]+)[",{]' driver/*.c)
while IFS= read -r l; do
	breach "plugin code called outside pl_invoke: $l"
done < <(grep -rnE '&pl_host\b|info(\.|->)(run|lower|init|fini)\(' \
	lower pipeline passes plugins driver | grep -v '^plugins/host\.c:')
while read -r n f; do
	[ "$f" = total ] && continue
	case "$f" in
	lower/*|pipeline/*|passes/*|plugins/*) max=800 ;;
	*) max=1000 ;;
	esac
	[ "$n" -le $max ] || breach "$f has $n lines (over $max: split it at a seam)"
done < <(find ir frontend lower pipeline passes plugins backend driver include \
	fuzz tools -name '*.[ch]' -exec wc -l {} + )
[ $bad = 0 ] && echo "layers: ok"
exit $bad
