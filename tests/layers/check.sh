#!/usr/bin/env bash
# The layering of issue 17, checked on the sources:
# - plugins/ includes nothing of passes/, and passes/ includes of plugins/
#   only the header it publishes (plugins/pl.h);
# - plugin code is called in one place: only plugins/host.c hands out
#   pl_host (pl_invoke), nothing else calls a pass's, lowering's, init's
#   or fini's function pointer;
# - no source file of passes/ or plugins/ is over 800 lines.
# usage: check.sh SOURCE_ROOT.  Prints each breach; exit 1 if any.
set -u
top=${1:?usage: check.sh SOURCE_ROOT}
cd "$top" || exit 2
bad=0
breach() { echo "layers: $*"; bad=1; }
while IFS= read -r l; do
	breach "plugins/ includes passes/: $l"
done < <(grep -rn '#include "[^"]*passes/' plugins)
while IFS= read -r l; do
	breach "passes/ includes more of plugins/ than pl.h: $l"
done < <(grep -rn '#include "[^"]*plugins/' passes | grep -v '"\.\./plugins/pl\.h"')
while IFS= read -r l; do
	breach "plugin code called outside pl_invoke: $l"
done < <(grep -rnE '&pl_host\b|info(\.|->)(run|lower|init|fini)\(' \
	passes plugins driver | grep -v '^plugins/host\.c:')
while read -r n f; do
	[ "$f" = total ] && continue
	[ "$n" -le 800 ] || breach "$f has $n lines (over 800: split it at a seam)"
done < <(find passes plugins -name '*.[ch]' -exec wc -l {} + )
[ $bad = 0 ] && echo "layers: ok"
exit $bad
