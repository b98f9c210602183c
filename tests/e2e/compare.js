// Runs an ONNX model in ONNX Runtime for Node on every sample of a case and compares each output
// with the reference PyTorch computed.
//
// usage: node compare.js [-v] MODEL.onnx CASE_DIR
//        node compare.js --args CASE_DIR
//        node compare.js --plan < CASE_DIRS;  node compare.js --batch < CHECKS
//
// CASE_DIR holds case.json (inputs, outputs, samples, rtol, atol) and io.safetensors
// ('<k>/in/<input name>', '<k>/out/<output index>').  Floats match when
// |got - want| <= atol + rtol * |want| (NaN matches NaN, infinities match exactly); integers and
// booleans must be equal; dtypes and shapes must be equal.  Model inputs are fed by name, outputs
// are compared in order.  Exit 0 when every sample matches; otherwise one line on stderr saying
// which sample, output and element differ, and exit 1 (2 for bad usage or unreadable files).
//
// --plan and --batch do the same for a whole folder of cases in two processes (run_cases.sh).
//
// --args prints the onnxc arguments case.json asks for, one per line: '--dynamic' and
// 'NAME:DIM=LABEL' for each "symbolize": {NAME: {DIM: LABEL}} (a static dump that must be made
// dynamic), then the strings of "flags" as they are (--dynamic renames, --static LABEL=VALUE).
'use strict';
const fs = require('fs');
const path = require('path');

function caseArgs(meta) {
	const out = [];
	for (const [n, dims] of Object.entries(meta.symbolize || {}))
		for (const [d, label] of Object.entries(dims))
			out.push('--dynamic', `${n}:${d}=${label}`);
	const flags = meta.flags || [];
	if (!Array.isArray(flags) || flags.some((f) => typeof f !== 'string'))
		throw new Error('case.json "flags" must be a list of strings');
	return out.concat(flags);
}

if (require.main === module && process.argv[2] === '--args') {
	if (process.argv.length !== 4) {
		console.error('usage: node compare.js --args CASE_DIR');
		process.exit(2);
	}
	try {
		const meta = JSON.parse(fs.readFileSync(path.join(process.argv[3], 'case.json'), 'utf8'));
		for (const a of caseArgs(meta))
			console.log(a);
	} catch (e) {
		console.error(`compare.js: ${e.message}`);
		process.exit(2);
	}
	process.exit(0);
}

// --plan: a case folder per line on stdin; per case one line on stdout, its fields split by
// \x1e: the folder, 'run' or 'diagnose' (case.json "expect"), "expect_warning" (or ''), then the
// onnxc arguments of --args joined by \x1f; or the folder, 'error' and why case.json is bad.
if (require.main === module && process.argv[2] === '--plan') {
	const dirs = fs.readFileSync(0, 'utf8').split('\n').filter((l) => l !== '');
	for (const dir of dirs) {
		let line;
		try {
			const meta = JSON.parse(fs.readFileSync(path.join(dir, 'case.json'), 'utf8'));
			const warn = meta.expect_warning || '';
			if (/[\n\x1e]/.test(warn))
				throw new Error('case.json "expect_warning" spans lines');
			const args = caseArgs(meta);
			if (args.some((a) => /[\n\x1e\x1f]/.test(a)))
				throw new Error('case.json "flags" hold a control character');
			line = [dir, meta.expect === 'diagnose' ? 'diagnose' : 'run', warn, args.join('\x1f')];
		} catch (e) {
			line = [dir, 'error', `compare.js: ${String(e.message).split('\n')[0]}`, ''];
		}
		fs.writeSync(1, line.join('\x1e') + '\n');
	}
	process.exit(0);
}

let ort;
try {
	ort = require('onnxruntime-node');
} catch (e) {
	const tools = path.resolve(__dirname, '..', '..', 'tools');
	console.error('compare.js: cannot load onnxruntime-node (' + String(e.message).split('\n')[0] + ').\n' +
		`Install it with:  (cd ${tools} && npm ci --ignore-scripts)\n` +
		`and run with NODE_PATH=${path.join(tools, 'node_modules')}`);
	process.exit(2);
}

// safetensors dtype -> [ONNX Runtime tensor type, typed array]
const DTYPES = {
	F64: ['float64', Float64Array], F32: ['float32', Float32Array], F16: ['float16', Uint16Array],
	I64: ['int64', BigInt64Array], I32: ['int32', Int32Array], I16: ['int16', Int16Array],
	I8: ['int8', Int8Array], U8: ['uint8', Uint8Array], BOOL: ['bool', Uint8Array],
	U16: ['uint16', Uint16Array], U32: ['uint32', Uint32Array], U64: ['uint64', BigUint64Array],
};

function readSafetensors(file) {
	const buf = fs.readFileSync(file);
	if (buf.length < 8)
		throw new Error(`${file}: too short for a safetensors file`);
	const n = Number(buf.readBigUInt64LE(0));
	if (8 + n > buf.length)
		throw new Error(`${file}: header length ${n} runs past the end`);
	const hdr = JSON.parse(buf.subarray(8, 8 + n).toString('utf8'));
	const out = {};
	for (const [k, v] of Object.entries(hdr)) {
		if (k === '__metadata__')
			continue;
		const T = DTYPES[v.dtype];
		if (!T)
			throw new Error(`${file}: tensor '${k}' has dtype ${v.dtype}, which this harness cannot feed`);
		const [b, e] = v.data_offsets;
		if (8 + n + e > buf.length)
			throw new Error(`${file}: tensor '${k}' runs past the end`);
		// copy: typed arrays need aligned storage
		const raw = Uint8Array.prototype.slice.call(buf, 8 + n + b, 8 + n + e);
		out[k] = {type: T[0], data: new T[1](raw.buffer), dims: v.shape};
	}
	return out;
}

function f16ToNumber(h) {
	const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 0x1f, m = h & 0x3ff;
	if (e === 0)
		return s * Math.pow(2, -14) * (m / 1024);
	if (e === 31)
		return m ? NaN : s * Infinity;
	return s * Math.pow(2, e - 15) * (1 + m / 1024);
}

// ONNX Runtime hands float16 back as Uint16Array, or as Float16Array where Node has one
function numbers(t) {
	if (t.type === 'float16' && t.data instanceof Uint16Array)
		return Array.from(t.data, f16ToNumber);
	if (t.type === 'bool')
		return Array.from(t.data, (x) => (x ? 1 : 0));
	return Array.from(t.data); // BigInt for (u)int64: compared exactly
}

function fmtNum(x) {
	return typeof x === 'bigint' ? x.toString() : String(x);
}

// returns null when got matches want, else why not
function compare(got, want, rtol, atol) {
	const gd = Array.from(got.dims, Number), wd = want.dims;
	if (got.type !== want.type)
		return `dtype ${got.type}, expected ${want.type}`;
	if (gd.length !== wd.length || gd.some((d, i) => d !== wd[i]))
		return `shape [${gd.join(', ')}], expected [${wd.join(', ')}]`;
	const a = numbers(got), b = numbers(want);
	if (a.length !== b.length)
		return `${a.length} elements, expected ${b.length}`;
	const exact = !['float16', 'float32', 'float64'].includes(want.type);
	let bad = -1, nbad = 0, worst = 0;
	for (let i = 0; i < b.length; i++) {
		if (a[i] === b[i])
			continue;
		if (!exact && Number.isNaN(a[i]) && Number.isNaN(b[i]))
			continue;
		if (!exact) {
			const err = Math.abs(a[i] - b[i]);
			if (err > worst || Number.isNaN(err))
				worst = Number.isNaN(worst) ? worst : err;
			if (err <= atol + rtol * Math.abs(b[i]))
				continue; // false for NaN and for an infinity on one side only
		}
		nbad++;
		if (bad < 0)
			bad = i;
	}
	if (bad < 0)
		return null;
	const idx = [];
	for (let r = bad, k = wd.length - 1; k >= 0; k--) {
		idx.unshift(r % wd[k]);
		r = Math.floor(r / wd[k]);
	}
	let msg = `${nbad} of ${b.length} elements differ; first at [${idx.join(', ')}]: ` +
		`got ${fmtNum(a[bad])}, expected ${fmtNum(b[bad])}`;
	if (!exact)
		msg += ` (max abs err ${worst}, rtol ${rtol}, atol ${atol})`;
	return msg;
}

// Checks MODEL on every sample of the case in DIR; returns [rc, why]: rc 0 when every sample
// matches, 1 when one does not (why says where), 2 when the case cannot be read.
async function checkCase(model, dir, verbose) {
	let meta, io;
	try {
		meta = JSON.parse(fs.readFileSync(path.join(dir, 'case.json'), 'utf8'));
		io = readSafetensors(path.join(dir, 'io.safetensors'));
	} catch (e) {
		return [2, `compare.js: ${e.message}`];
	}
	const rtol = meta.rtol ?? 1e-4, atol = meta.atol ?? 1e-5;
	let sess;
	try {
		sess = await ort.InferenceSession.create(model, {graphOptimizationLevel: 'all'});
	} catch (e) {
		return [1, `ONNX Runtime rejects ${model}: ${String(e.message).split('\n')[0]}`];
	}
	try {
		return await runSamples(sess, meta, io, rtol, atol, verbose);
	} finally {
		await sess.release();  // a batch holds one session at a time
	}
}

async function runSamples(sess, meta, io, rtol, atol, verbose) {
	const missing = meta.inputs.filter((n) => !sess.inputNames.includes(n));
	const extra = sess.inputNames.filter((n) => !meta.inputs.includes(n));
	if (missing.length || extra.length)
		return [1, `model inputs [${sess.inputNames.join(', ')}], expected [${meta.inputs.join(', ')}]`];
	/* a program that mutates inputs or buffers may also output their new
	 * values, first, as its signature lists them (as ../shared's
	 * ort-compare.js allows) */
	const skip = sess.outputNames.length - meta.outputs;
	if (skip !== 0 && skip !== (meta.mutations || 0))
		return [1, `model has ${sess.outputNames.length} outputs, expected ${meta.outputs}`];
	for (let k = 0; k < meta.samples; k++) {
		const feeds = {};
		for (const name of meta.inputs) {
			const t = io[`${k}/in/${name}`];
			if (!t)
				return [2, `io.safetensors has no '${k}/in/${name}'`];
			feeds[name] = new ort.Tensor(t.type, t.data, t.dims);
		}
		let out;
		try {
			out = await sess.run(feeds);
		} catch (e) {
			return [1, `sample ${k}: ONNX Runtime failed: ${String(e.message).split('\n')[0]}`];
		}
		for (let j = 0; j < meta.outputs; j++) {
			const nm = sess.outputNames[skip + j];
			const want = io[`${k}/out/${j}`];
			if (!want)
				return [2, `io.safetensors has no '${k}/out/${j}'`];
			const err = compare(out[nm], want, rtol, atol);
			if (err)
				return [1, `sample ${k} output ${j} (${nm}): ${err}`];
		}
		if (verbose)
			console.log(`sample ${k}: ${meta.outputs} outputs match`);
	}
	return [0, null];
}

// --batch: one line 'NAME<TAB>MODEL<TAB>CASE_DIR' per check on stdin, one 'PASS NAME' or
// 'FAIL NAME: why' per line on stdout, in order, as each finishes (one process and one load of
// ONNX Runtime for a whole case folder: run_cases.sh).
async function batch() {
	const lines = fs.readFileSync(0, 'utf8').split('\n').filter((l) => l !== '');
	let failed = 0;
	for (const line of lines) {
		const [name, model, dir] = line.split('\t');
		if (dir === undefined) {
			console.error(`compare.js --batch: bad line '${line}'`);
			return 2;
		}
		let rc, why;
		try {
			[rc, why] = await checkCase(model, dir, false);
		} catch (e) {
			[rc, why] = [2, `compare.js: ${e.message}`];
		}
		if (rc !== 0)
			failed++;
		fs.writeSync(1, rc === 0 ? `PASS ${name}\n` : `FAIL ${name}: ${why.split('\n')[0]}\n`);
	}
	return failed ? 1 : 0;
}

async function main(argv) {
	if (argv.length === 1 && argv[0] === '--batch')
		return batch();
	const verbose = argv[0] === '-v';
	if (verbose)
		argv = argv.slice(1);
	if (argv.length !== 2) {
		console.error('usage: node compare.js [-v] MODEL.onnx CASE_DIR | --batch');
		return 2;
	}
	const [rc, why] = await checkCase(argv[0], argv[1], verbose);
	if (why)
		console.error(why);
	return rc;
}

// required by another script (tools/bench_latency.js): the reader only
if (require.main === module)
	main(process.argv.slice(2)).then((rc) => process.exit(rc), (e) => {
		console.error(`compare.js: ${e.stack || e}`);
		process.exit(2);
	});
module.exports = {readSafetensors};
