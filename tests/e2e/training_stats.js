// Runs a --training dropout model of tests/training in ONNX Runtime on its sample input (ones) and
// checks the statistics of the output: case "check" dropout: about p zeros, the rest 1/(1-p);
// feature: whole channels zero or 1/(1-p), about p of them; alpha: two levels only, PyTorch's
// affine ones for a dropped and a kept element, about p dropped.
// usage: node training_stats.js MODEL.onnx CASE_DIR
'use strict';
const fs = require('fs');
const ort = require('onnxruntime-node');

function readSafetensors(file) {
	const b = fs.readFileSync(file);
	const n = Number(b.readBigUInt64LE(0));
	const h = JSON.parse(b.subarray(8, 8 + n).toString());
	const out = {};
	for (const [k, v] of Object.entries(h)) {
		if (k === '__metadata__') continue;
		const [s, e] = v.data_offsets;
		const bytes = b.subarray(8 + n + s, 8 + n + e);
		out[k] = {shape: v.shape, data: new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length))};
	}
	return out;
}

function near(a, b) { return Math.abs(a - b) <= 1e-5 * Math.max(1, Math.abs(b)); }

(async () => {
	const [model, dir] = process.argv.slice(2);
	const meta = JSON.parse(fs.readFileSync(`${dir}/case.json`, 'utf8'));
	// the probability as the dump states it: aten::*dropout.default(x, p, True)
	const site = /dropout\.default\(\w+, ([0-9.e-]+), True\)/.exec(fs.readFileSync(`${dir}/graph.txt`, 'utf8'));
	if (!site) throw new Error(`${dir}/graph.txt has no train-mode dropout`);
	const ratio = Number(site[1]);
	const io = readSafetensors(`${dir}/io.safetensors`);
	const x = io[`0/in/${meta.inputs[0]}`];
	const sess = await ort.InferenceSession.create(model);
	const res = await sess.run({[meta.inputs[0]]: new ort.Tensor('float32', x.data, x.shape)});
	const y = res[sess.outputNames[0]].data;
	const fail = (msg) => { console.error(`${meta.name}: ${msg}`); process.exit(1); };
	if (y.length !== x.data.length) fail(`output has ${y.length} elements, input ${x.data.length}`);
	const kept = 1 / (1 - ratio);
	let dropped = 0, units = 0;
	if (meta.check === 'dropout') {
		for (const v of y) {
			if (v === 0) dropped++;
			else if (!near(v, kept)) fail(`kept element ${v}, expected ${kept}`);
		}
		units = y.length;
	} else if (meta.check === 'feature') {
		const hw = x.shape.slice(2).reduce((a, b) => a * b, 1);
		for (let c = 0; c < y.length; c += hw) {
			const first = y[c];
			if (first !== 0 && !near(first, kept)) fail(`channel value ${first}`);
			for (let i = 1; i < hw; i++)
				if (y[c + i] !== first) fail(`channel ${c / hw} is not all ${first}`);
			if (first === 0) dropped++;
			units++;
		}
	} else if (meta.check === 'alpha') {
		const al = 1.7580993408473766;
		const a = 1 / Math.sqrt((al * al * ratio + 1) * (1 - ratio));
		const keep = a + al * a * ratio, drop = -al * a + al * a * ratio;
		for (const v of y) {
			if (near(v, drop)) dropped++;
			else if (!near(v, keep)) fail(`value ${v} is neither ${keep} nor ${drop}`);
		}
		units = y.length;
	} else {
		fail(`unknown check ${meta.check}`);
	}
	const frac = dropped / units;
	// binomial: 5 standard deviations either way
	const sd = Math.sqrt(ratio * (1 - ratio) / units);
	if (Math.abs(frac - ratio) > 5 * sd + 1e-9)
		fail(`${dropped} of ${units} dropped (${frac.toFixed(3)}), expected about ${ratio}`);
})().catch((e) => { console.error(String(e)); process.exit(1); });
