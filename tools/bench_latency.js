// ONNX Runtime latency of models of one case, side by side: every session is made (graph
// optimizations at "all", one thread pool each as ORT sets it), warmed up, then run in turns
// (A, B, ..., A, B, ...) on the case's sample 0 inputs; prints the median milliseconds of each.
// usage: node bench_latency.js A.onnx B.onnx [C.onnx...] CASE_DIR [RUNS] [WARMUP]
'use strict';
const path = require('path');
const fs = require('fs');
const ort = require('onnxruntime-node');
const {readSafetensors} = require(path.join(__dirname, '..', 'tests', 'e2e', 'compare.js'));

function median(xs) {
	const s = [...xs].sort((a, b) => a - b);
	return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

async function main(args) {
	const models = [];
	while (args.length && args[0].endsWith('.onnx'))
		models.push(args.shift());
	const [dir, runs = '30', warm = '5'] = args;
	const meta = JSON.parse(fs.readFileSync(path.join(dir, 'case.json'), 'utf8'));
	const io = readSafetensors(path.join(dir, 'io.safetensors'));
	const feeds = {};
	for (const name of meta.inputs) {
		const t = io[`0/in/${name}`];
		feeds[name] = new ort.Tensor(t.type, t.data, t.dims);
	}
	const opts = {graphOptimizationLevel: 'all', logSeverityLevel: 3};
	const sess = [];
	for (const m of models)
		sess.push(await ort.InferenceSession.create(m, opts));
	for (let i = 0; i < +warm; i++)
		for (const s of sess)
			await s.run(feeds);
	const ms = sess.map(() => []);
	for (let i = 0; i < +runs; i++)
		for (let k = 0; k < sess.length; k++) {
			const t0 = process.hrtime.bigint();
			await sess[k].run(feeds);
			ms[k].push(Number(process.hrtime.bigint() - t0) / 1e6);
		}
	console.log(ms.map((m) => median(m).toFixed(3)).join(' '));
}

main(process.argv.slice(2)).catch((e) => {
	console.error(`bench_latency.js: ${String(e.message || e).split('\n')[0]}`);
	process.exit(1);
});
