// Runs a model of integer divisions (tests/cases-ops/edge_int_div_guard, converted by onnxc) on
// divisors that hold 0 and -1 next to INT64_MIN, which ONNX Runtime's integer Div and Mod trap on
// (SIGFPE) unless onnxc guards them: the run must finish, the lanes of 0 give 0, of -1 give -a
// (floor and trunc division, wrapping at INT64_MIN) and 0 (remainder, fmod).
// usage: node int_div_zero.js MODEL.onnx
'use strict';
const ort = require('onnxruntime-node');

async function main() {
	const s = await ort.InferenceSession.create(process.argv[2]);
	const a = BigInt64Array.from([7n, -7n, -(2n ** 63n), 9n, 0n]);
	const b = BigInt64Array.from([0n, -1n, -1n, 0n, 0n]);
	const c = Int32Array.from([7, -(2 ** 31), 5]);
	const d = Int32Array.from([0, -1, 2]);
	const feeds = {};
	const names = s.inputNames;
	feeds[names[0]] = new ort.Tensor('int64', a, [5]);
	feeds[names[1]] = new ort.Tensor('int64', b, [5]);
	feeds[names[2]] = new ort.Tensor('int32', c, [3]);
	feeds[names[3]] = new ort.Tensor('int32', d, [3]);
	const out = await s.run(feeds);
	const got = s.outputNames.map((n) => Array.from(out[n].data, (v) => String(v)));
	const min64 = String(-(2n ** 63n)), min32 = String(-(2 ** 31));
	const want = [
		['0', '7', min64, '0', '0'],   // a // b
		['0', '7', min64, '0', '0'],   // trunc
		['0', '0', '0', '0', '0'],     // remainder
		['0', '0', '0', '0', '0'],     // fmod
		['0', min32, '2'],             // c // d
		['0', '0', '1'],               // remainder
		['0', min32, '2'],             // trunc
	];
	let bad = 0;
	for (let k = 0; k < want.length; k++)
		if (JSON.stringify(got[k]) !== JSON.stringify(want[k])) {
			console.error(`output ${k}: got ${got[k]}, want ${want[k]}`);
			bad = 1;
		}
	process.exit(bad);
}
main().catch((e) => { console.error(String(e)); process.exit(2); });
