// check_linear.js MODEL IN OUT - run a model made from tools/genlinear.c's
// Linear in ONNX Runtime (Node) with x = ones and compare every output
// with the sum genlinear's weights give; exit 0 when all match.
// Needs onnxruntime-node (NODE_PATH=tools/node_modules).
'use strict';
const ort = require('onnxruntime-node');

function wval(k) {   // genlinear.c's wval: k * c mod 2^32 needs k mod 2^32
	const h = Math.imul(k >>> 0, 2654435761 >>> 0) >>> 0;
	return ((h >>> 20) - 2048) / 4096;
}

async function main() {
	const [model, inS, outS] = process.argv.slice(2);
	const IN = Number(inS), OUT = Number(outS);
	const s = await ort.InferenceSession.create(model);
	const x = new ort.Tensor('float32', new Float32Array(IN).fill(1),
	    [1, IN]);
	const r = await s.run({[s.inputNames[0]]: x});
	const y = r[s.outputNames[0]].data;
	if (y.length !== OUT)
		throw new Error(`${y.length} outputs, expected ${OUT}`);
	let bad = 0;
	for (let j = 0; j < OUT; j++) {
		let want = (j % 7) / 8;
		for (let i = 0; i < IN; i++)
			want += wval(j * IN + i);
		const tol = 1e-3 + 1e-4 * Math.abs(want);
		if (!(Math.abs(y[j] - want) <= tol) && bad++ < 5)
			console.error(`y[${j}] = ${y[j]}, expected ${want}`);
	}
	if (bad) {
		console.error(`${bad} of ${OUT} outputs differ`);
		process.exit(1);
	}
	console.log(`ok: ${OUT} outputs match`);
}
main().catch((e) => {
	console.error('check_linear: ' + e.message);
	process.exit(1);
});
