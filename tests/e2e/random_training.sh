#!/usr/bin/env bash
# Random ops with --training (passes/random.c): the model converts, and in ONNX Runtime
# rand_like/randn/bernoulli.p/randint.low give values of the right kind and range (randomness has
# no reference outputs: each draw is checked against its distribution's support).
# usage: random_training.sh ONNXC
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export NODE_PATH="$root/tools/node_modules${NODE_PATH:+:$NODE_PATH}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$1" --training "$here/random_training.txt" -o "$work/r.onnx" || { echo "FAIL: conversion"; exit 1; }
node - "$work/r.onnx" <<'JS' || exit 1
const ort = require('onnxruntime-node');
(async () => {
	const s = await ort.InferenceSession.create(process.argv[2]);
	const x = new ort.Tensor('float32', Float32Array.from([0, 1, 2, 3, 4, 5]), [2, 3]);
	const o = await s.run({x});
	const ri = Array.from(o.ri.data, Number);
	if (o.ri.type !== 'int64' || ri.length !== 4 || ri.some(v => v < 2 || v >= 5))
		throw new Error('randint.low(2, 5): ' + ri);
	if (o.add_1.dims.join() !== '2,3' || Array.from(o.add_1.data).some(v => !isFinite(v)))
		throw new Error('rand_like + randn + bernoulli: ' + Array.from(o.add_1.data));
	console.log('PASS random_training');
})().catch(e => { console.log('FAIL random_training: ' + e.message); process.exit(1); });
JS
