#!/usr/bin/env bash
# The plugin host seen from the command line: every way a plugin can fail
# is a diagnostic naming the plugin and exit 1; pipeline text errors point
# into the text; --list-passes shows where passes come from; plugin
# lowerings (custom ops, declining, opset ranges) and a pass that rebuilds
# nodes; and no plugin module takes a symbol from onnxc.
# usage: plugins.sh ONNXC BUILD_DIR SOURCE_DIR
# The small plugins of tests/plugins are in BUILD_DIR/test-plugins; the
# built-in modules in BUILD_DIR/plugins.
set -u
if [ $# -ne 3 ]; then
	echo "usage: $0 ONNXC BUILD_DIR SOURCE_DIR" >&2
	exit 2
fi
onnxc=$1 build=$2 src=$3
tp=$build/test-plugins
graph=$src/tests/cases/activations/graph.txt
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset ONNXC_PLUGIN_PATH
pass=0 fail=0

ok() { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1: $2"; fail=$((fail + 1)); }

# expect NAME CODE REGEX... -- ARGS: onnxc ARGS exits with CODE and its
# stderr matches every REGEX (Perl syntax); a crash never passes.
expect() {
	local name=$1 code=$2
	shift 2
	local res=()
	while [ "$1" != -- ]; do
		res+=("$1")
		shift
	done
	shift
	"$onnxc" "$@" >"$work/out" 2>"$work/err"
	local rc=$?
	if [ $rc -ne "$code" ]; then
		bad "$name" "exit $rc, expected $code: $(head -c 600 "$work/err")"
		return
	fi
	for re in "${res[@]+"${res[@]}"}"; do
		if ! grep -Pzq -- "$re" "$work/err"; then
			bad "$name" "stderr does not match /$re/: $(head -c 600 "$work/err")"
			return
		fi
	done
	ok "$name"
}

o=$work/out.onnx

# --- loading: each failure names the plugin and exits 1
expect missing_file 1 'nope\.so: error: cannot load plugin: No such file' -- \
	"$graph" -o "$o" --load-plugin "$work/nope.so"
printf 'this is text, not ELF\n' >"$work/text.so"
expect not_a_shared_object 1 'text\.so: error: not a loadable plugin module' -- \
	"$graph" -o "$o" --load-plugin "$work/text.so"
expect no_descriptor 1 'no_descriptor\.so: error: not an onnxc plugin: it exports no .onnxc_plugin.' -- \
	"$graph" -o "$o" --load-plugin "$tp/no_descriptor.so"
# init aborts: exit 1 proves the host never called it
expect wrong_abi_major 1 'wrong_abi\.so: error: plugin built for plugin ABI 2\.0; this onnxc runs ABI 1\.[0-9]+ plugins' -- \
	"$graph" -o "$o" --load-plugin "$tp/wrong_abi.so"
expect init_fails 1 'init_fail\.so: error: \[init-fail\] cannot find its configuration' \
	"init_fail\\.so: error: plugin 'init-fail' failed to initialise" -- \
	"$graph" -o "$o" --load-plugin "$tp/init_fail.so"
[ -e "$o" ] && bad no_output_on_failure "an output was written" || ok no_output_on_failure

# --- running: a pass or a lowering that fails names its plugin
expect pass_returns_error 1 'graph\.txt:4:36: error: \[pass-error\] refusing aten::relu\.default' -- \
	"$graph" -o "$o" --load-plugin "$tp/pass_error.so" --passes=pass-error,lower
expect lowering_returns_error 1 'error: aten::relu\.default: \[lower-error\] the lowering failed' -- \
	"$graph" -o "$o" --load-plugin "$tp/lower_error.so" --passes=lower
expect lowering_binds_nothing 1 'error: aten::relu\.default: \[lower-nobind\] the lowering bound no output' -- \
	"$graph" -o "$o" --load-plugin "$tp/lower_nobind.so" --passes=lower
expect option_wrong_type 1 "--passes:1:8: error: option 'n' of pass 'opts' takes an int, not 'x'\\n  opts\\{n=x\\},lower\\n         \\^" -- \
	"$graph" -o "$o" --load-plugin "$tp/options.so" '--passes=opts{n=x},lower'
expect option_values 0 'note: \[options\] n=7 flag=1 scale=1\.5 tag=<a, b>' -- \
	"$graph" -o "$o" --load-plugin "$tp/options.so" "--passes=opts{n=7,flag=true,scale=1.5,tag='a, b'},lower"
expect option_defaults 0 'note: \[options\] n=3 flag=0 scale=0\.5 tag=<none>' -- \
	"$graph" -o "$o" --load-plugin "$tp/options.so" --passes=opts,lower
expect pass_checks_option 1 'error: \[options\] n must not be negative' -- \
	"$graph" -o "$o" --load-plugin "$tp/options.so" '--passes=opts{n=-1},lower'

# --- pipeline text
expect unknown_pass 1 "--passes:1:7: error: unknown pass 'flod'\\n  lower,flod\\n        \\^" \
	'note: registered passes: lower' -- "$graph" -o "$o" --passes=lower,flod
expect unbalanced_brace 1 "--passes:1:11: error: unbalanced '\\{': no '\\}' closes it" -- \
	"$graph" -o "$o" --load-plugin "$tp/options.so" '--passes=lower,opts{n=1'
expect trailing_junk 1 "--passes:1:6: error: expected ',' or the end after pass 'lower', not '\\)'" -- \
	"$graph" -o "$o" '--passes=lower)'
expect passes_and_level 2 'both given' -- "$graph" -o "$o" --passes=lower -O1
expect bad_level 2 "unknown option '-O3'" -- "$graph" -o "$o" -O3
expect print_after_unknown 1 "--print-ir-after: no pass is named 'nothing'" -- \
	"$graph" -o "$o" --passes=lower --print-ir-after=nothing
expect no_lower 1 "needs the pass 'lower'" -- "$graph" -o "$o" \
	--load-plugin "$tp/options.so" --passes=opts

# --- pass contracts: an ordering mistake is an error before any pass runs
rm -f "$o"
expect onnx_pass_before_lower 1 "--passes:1:1: error: pass 'simplify' needs property 'onnx' \\(an ONNX graph\\): no pass before it provides it\\n  simplify,lower\\n  \\^" \
	"note: pass 'lower' provides 'onnx': run it before 'simplify'" -- \
	"$graph" -o "$o" --passes=simplify,lower
expect lower_twice 1 "--passes:1:7: error: pass 'lower' needs property 'fx' \\(an FX graph, not lowered yet\\): pass 'lower' before it does not keep it" -- \
	"$graph" -o "$o" --passes=lower,lower
expect fx_pass_after_lower 1 "--passes:1:7: error: pass 'decompose' needs property 'fx'" -- \
	"$graph" -o "$o" --passes=lower,decompose
[ -e "$o" ] && bad no_output_on_contract "an output was written" || ok no_output_on_contract
# a plugin of ABI 1.3 loads, and its pass (no contract) is not checked
expect abi_1_3_before_lower 0 'note: \[abi-1\.3\] host ABI 1\.([4-9]|[1-9][0-9]), graph_new present, 10 outputs' -- \
	"$graph" -o "$o" --load-plugin "$tp/abi13.so" --passes=old-abi,lower
expect abi_1_3_after_lower 0 'note: \[abi-1\.3\] host ABI' -- \
	"$graph" -o "$o" --load-plugin "$tp/abi13.so" --passes=lower,old-abi,dce
expect abi_1_3_listed 0 -- --list-passes --load-plugin "$tp/abi13.so"
if grep -A1 '^old-abi ' "$work/out" | grep -q 'no contract (a plugin of ABI 1\.3 or older): not checked'
then ok abi_1_3_no_contract; else bad abi_1_3_no_contract "$(grep -A1 old-abi "$work/out")"; fi

# --- listing
expect list_passes 0 -- --list-passes --load-plugin "$tp/options.so"
if grep -Eq '^lower .* built-in$' "$work/out" &&
	grep -Eq "^opts .* $tp/options\\.so\$" "$work/out" &&
	grep -q '{n=int} default .3.: a count' "$work/out" &&
	grep -qx '    needs fx; provides onnx; breaks fx' "$work/out"; then
	ok list_passes_where
else
	bad list_passes_where "$(cat "$work/out")"
fi
# every built-in module shows, by its passes or (random.so) its lowerings
cp "$work/out" "$work/passes"
"$onnxc" --list-lowerings > "$work/lowerings" 2>&1
for so in "$build"/plugins/*.so; do
	[ -e "$so" ] || continue
	if grep -q " $so\$" "$work/passes" || grep -q " $so\$" "$work/lowerings"
	then ok "list_shows_$(basename "$so")"
	else bad "list_shows_$(basename "$so")" "not in --list-passes or --list-lowerings"; fi
done
expect list_lowerings 0 -- --list-lowerings --load-plugin "$tp/mylib.so"
if head -1 "$work/out" | grep -Eq "^mylib::twice\\.default +ai\\.onnx +>=17 +plugin +$tp/mylib\\.so\$" &&
	grep -Eq '^aten::relu\.default +ai\.onnx +rule +built-in$' "$work/out" &&
	grep -Eq '^aten::outer\.default +decomposition +decompose pass$' "$work/out"; then
	ok list_lowerings_order
else
	bad list_lowerings_order "$(head -5 "$work/out")"
fi
# ONNXC_PLUGIN_PATH; the first plugin of a name wins over later folders
mkdir -p "$work/p1" "$work/p2"
cp "$tp/options.so" "$work/p1/a.so"
cp "$tp/options.so" "$work/p2/b.so"
ONNXC_PLUGIN_PATH=$work/p1:$work/p2 expect plugin_path 0 -- --list-passes
if grep -Eq "^opts .* $work/p1/a\\.so\$" "$work/out"; then ok plugin_path_first
else bad plugin_path_first "$(cat "$work/out")"; fi
expect same_name_twice 1 "plugin 'options' is already loaded from" -- \
	--list-passes --load-plugin "$work/p1/a.so" --load-plugin "$work/p2/b.so"

# --- translation plugin: a custom op, a declining lowering, opset ranges,
# and a pass that remakes nodes at the end of the graph
my=$src/tests/plugins
expect custom_op 0 -- "$my/mylib.txt" -o "$o" --load-plugin "$tp/mylib.so" \
	--passes=lower --print-ir
if grep -q '%twice: f32\[2, 3\] = Add(%x, %x)' "$work/out" &&
	grep -q '= Relu(%twice)' "$work/out" && ! grep -q Garbage "$work/out"; then
	ok custom_op_lowered
else
	bad custom_op_lowered "$(cat "$work/out")"
fi
expect opset_out_of_range 1 "error: unsupported operator 'mylib::old\\.default'" -- \
	"$my/mylib_old.txt" -o "$o" --load-plugin "$tp/mylib.so" --passes=lower
expect opset_in_range 0 -- "$my/mylib_old.txt" -o "$o" --opset 17 \
	--load-plugin "$tp/mylib.so" --passes=lower
expect rebuilt_nodes 0 -- "$my/mylib.txt" -o "$o" --load-plugin "$tp/mylib.so" \
	--passes=rebuild-relu,lower --verify-each --print-ir-after=rebuild-relu
if tr '\n' '|' <"$work/out" | grep -Eq '^// IR after rebuild-relu\|graph [^|]*\| *%twice[^|]*\| *%relu: f32\[2, 3\] = aten::relu\.default\(%twice\)\| *%neg[^|]*\(%relu\)'; then
	ok rebuilt_nodes_in_order
else
	bad rebuilt_nodes_in_order "$(cat "$work/out")"
fi

# --- ABI 1.4: a plugin pass makes an If with two branch subgraphs that
# capture a value of the graph; its contract needs the ONNX graph
rm -f "$o"
expect nested_graphs 0 -- "$my/mylib.txt" -o "$o" --load-plugin "$tp/mylib.so" \
	--load-plugin "$tp/nest.so" --passes=lower,wrap-if --verify-each --print-ir-after=wrap-if
if grep -q '%wrap_if_out: f32\[2, 3\] = If(%wrap_if_cond, capture=%relu, then_branch=@wrap_if_then, else_branch=@wrap_if_else)' "$work/out" &&
	grep -q 'return %wrap_if_out, %neg' "$work/out" &&
	[ "$(grep -c '%wrap_if_x: f32\[2, 3\] outer capture 0' "$work/out")" = 2 ] && [ -s "$o" ]; then
	ok nested_graphs_built
else
	bad nested_graphs_built "$(cat "$work/out")"
fi
expect nested_graphs_need_onnx 1 "--passes:1:1: error: pass 'wrap-if' needs property 'onnx'" -- \
	"$my/mylib.txt" -o "$o" --load-plugin "$tp/mylib.so" --load-plugin "$tp/nest.so" --passes=wrap-if,lower

# --- no plugin module takes a symbol from onnxc
nm -g --defined-only "$build/libonnxc_core.a" 2>/dev/null |
	awk 'NF == 3 { print $3 }' | sort -u >"$work/core"
[ -s "$work/core" ] || bad nm_core "no symbols read from libonnxc_core.a"
for so in "$build"/plugins/*.so "$tp"/*.so; do
	[ -e "$so" ] || continue
	name=nm_$(basename "$(dirname "$so")")_$(basename "$so")
	undef=$(nm -D --undefined-only "$so" | awk '{ sub(/@.*/, "", $NF); print $NF }' | sort -u)
	if ! nm -D --undefined-only "$so" >/dev/null 2>&1; then
		bad "$name" "nm failed"
	elif comm -12 "$work/core" <(echo "$undef") | grep -q . ||
		echo "$undef" | grep -qi onnxc; then
		bad "$name" "undefined onnxc symbols: $(comm -12 "$work/core" <(echo "$undef") | tr '\n' ' ')"
	else
		ok "$name"
	fi
done

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
