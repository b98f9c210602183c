#!/usr/bin/env bash
# The .pt2 frontend against the dump frontend on the same programs
# (tests/pt2/*/: model.pt2, graph.txt and weights.safetensors made by
# gen.py with torch 2.14): the archive alone and the dump with its weights
# must give byte-identical .onnx and .ort files (but for the module stacks
# only an archive records: compared with --no-metadata, and the archive's
# namespace checked on its own).  Also --program,
# --weights over an archive, and a torch 2.6 archive (pickled weights)
# read into the same IR as its dump.
# usage: run.sh ONNXC DIR
set -u
onnxc=$1 dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
check() {  # WHAT COMMAND...: the command must succeed
	local what=$1; shift
	if ! "$@" 2>"$work/err"; then
		echo "FAIL $what: $(head -c 400 "$work/err")"; fail=1; return 1
	fi
}
same() {  # WHAT A B
	if cmp -s "$2" "$3"; then echo "PASS $1"; else echo "FAIL $1: $2 and $3 differ"; fail=1; fi
}
"$(dirname "$0")/../e2e/archive_eq_dump.sh" "$onnxc" "$dir" || fail=1

# --program picks one of several; each converts on its own
check "--program first" "$onnxc" "$dir/multi.pt2" --program first -o "$work/first.onnx" &&
check "--program second" "$onnxc" "$dir/multi.pt2" --program second -o "$work/second.onnx" &&
if cmp -s "$work/first.onnx" "$work/second.onnx"; then
	echo "FAIL --program: both programs gave the same model"; fail=1
else
	echo "PASS --program"
fi

# --weights overrides the archive's tensors by key: as the dump with that file
m=$dir/mlp
check "--weights over an archive" "$onnxc" "$m/model.pt2" --weights "$m/override.safetensors" \
	--no-metadata -o "$work/over.a.onnx" &&
check "--weights over a dump" "$onnxc" "$m/graph.txt" --weights "$m/override.safetensors" \
	--no-metadata -o "$work/over.d.onnx" &&
same "--weights over an archive = the dump with it" "$work/over.a.onnx" "$work/over.d.onnx"
if cmp -s "$work/over.a.onnx" "$work/mlp.a.onnx"; then
	echo "FAIL --weights over an archive changed nothing"; fail=1
fi

# an archive's nodes carry their module stack: the linear of fc1 is in the
# namespace of module fc1 (class torch.nn.modules.linear.Linear), as
# torch.onnx writes it from nn_module_stack
check "mlp archive with metadata" "$onnxc" "$m/model.pt2" -o "$work/meta.onnx" &&
if strings "$work/meta.onnx" | grep -q '^.*fc1: torch.nn.modules.linear.Linear'; then
	echo "PASS archive namespace from nn_module_stack"
else
	echo "FAIL archive namespace: no 'fc1: torch.nn.modules.linear.Linear' in the metadata"; fail=1
fi

# torch 2.6 layout: the IR (locations, bound weights and list brackets
# aside, which the JSON does not keep) equals the dump's
v=$dir/v26_cond
"$onnxc" "$v/model.pt2" --print-ir --passes=dce >"$work/a.ir" 2>"$work/err" ||
	{ echo "FAIL 2.6 archive: $(head -c 400 "$work/err")"; fail=1; }
"$onnxc" "$v/graph.txt" --print-ir --passes=dce >"$work/d.ir" 2>"$work/err" ||
	{ echo "FAIL 2.6 dump: $(head -c 400 "$work/err")"; fail=1; }
norm() { sed -e 's/  # [0-9]*:[0-9]*$//' -e 's/ init,$/,/' -e 's/ init)/)/' -e 's/\[\(%[^]]*\)\]/(\1)/g' "$1"; }
if [ "$(grep -c ' init[,)]' "$work/a.ir")" != 4 ]; then
	echo "FAIL 2.6 archive: its 4 parameters are not bound"; fail=1
elif [ "$(norm "$work/a.ir")" != "$(norm "$work/d.ir")" ]; then
	echo "FAIL 2.6 archive: IR differs from the dump's"
	diff <(norm "$work/a.ir") <(norm "$work/d.ir") | head -20; fail=1
else
	echo "PASS 2.6 archive: same IR as its dump, weights from the pickles"
fi

# torch 2.6 archives of ops with keyword-only arguments (written
# positionally there; frontend/pt2_kwonly.def keys them): the same IR
for v in "$dir"/v26_kw_*; do
	k=${v##*/}
	if ! "$onnxc" "$v/model.pt2" --print-ir --passes=dce >"$work/a.ir" 2>"$work/err"; then
		echo "FAIL $k archive: $(head -c 400 "$work/err")"; fail=1
	elif ! "$onnxc" "$v/graph.txt" --print-ir --passes=dce >"$work/d.ir" 2>"$work/err"; then
		echo "FAIL $k dump: $(head -c 400 "$work/err")"; fail=1
	elif [ "$(norm "$work/a.ir")" != "$(norm "$work/d.ir")" ]; then
		echo "FAIL $k: IR differs from the dump's"
		diff <(norm "$work/a.ir") <(norm "$work/d.ir") | head -20; fail=1
	else
		echo "PASS $k: same IR as its dump"
	fi
done
exit $fail
