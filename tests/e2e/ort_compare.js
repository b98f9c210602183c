// Compares onnxc's .ort file with the one ONNX Runtime itself writes from onnxc's .onnx of the same
// model (graph optimizations disabled, session.save_model_format=ORT).  Both are decoded with
// `flatc --json --raw-binary` and compared, ordering aside:
// - nodes, by name: op_type, domain, since_version, inputs, outputs, input_arg_counts,
//   implicit_inputs and attributes (with the schema defaults ONNX Runtime fills in);
// - node edges, as (producer, output, consumer, input) by node name, both directions;
// - the kernel type-string resolver: op ids, type strings and their (INPUT|OUTPUT, index) args;
// - initializers (name, type, dims, bytes), graph inputs and outputs, and node_args (name,
//   element type, and every dim that both files state as a number).
//
// usage: node ort_compare.js MODEL.onnx MODEL.ort SCHEMA.fbs
//        node ort_compare.js --batch SCHEMA.fbs < 'NAME<TAB>MODEL.onnx<TAB>MODEL.ort' lines
// SCHEMA.fbs is ort.fbs as ONNX Runtime 1.30 reads it (backend/ort.fbs in this repository).
// Exit 0 when they agree; otherwise every difference on stderr (at most 40) and exit 1; exit 2
// for bad usage or a file that does not decode.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');

function die(msg, code) {
	process.stderr.write(msg + '\n');
	process.exit(code);
}

function decode(schema, file, dir) {
	const base = path.basename(file).replace(/\.[^.]*$/, '');
	try {
		execFileSync('flatc', ['--json', '--strict-json', '--raw-binary', '-o', dir, schema,
			'--', file], { stdio: ['ignore', 'ignore', 'pipe'] });
	} catch (e) {
		throw new Error(`flatc cannot decode ${file}: ${e.stderr || e.message}`);
	}
	return loadJson(path.join(dir, base + '.json'));
}

// flatc prints a [uint8] one element per line: weights would make the text too long for one
// JavaScript string, so raw_data arrays are summed up line by line into {bytes, hash}.
function loadJson(file) {
	const fd = fs.openSync(file, 'r');
	const out = [];
	const chunk = Buffer.alloc(1 << 20);
	let rest = '', inRaw = false, n = 0, h = 0, got;
	while ((got = fs.readSync(fd, chunk, 0, chunk.length, null)) > 0) {
		const lines = (rest + chunk.toString('latin1', 0, got)).split('\n');
		rest = lines.pop();
		for (const line of lines) {
			if (inRaw) {
				const t = line.trim();
				if (t.startsWith(']')) {
					out.push(`{"bytes": ${n}, "hash": ${h}}${t.slice(1)}`);
					inRaw = false;
				} else {
					h = (Math.imul(h, 31) + parseInt(t, 10)) | 0;
					n++;
				}
			} else if (/"raw_data": \[$/.test(line)) {
				out.push(line.slice(0, -1));
				inRaw = true;
				n = 0;
				h = 0;
			} else if (/"raw_data": \[\]/.test(line)) {
				out.push(line.replace('[]', '{"bytes": 0, "hash": 0}'));
			} else {
				out.push(line);
			}
		}
	}
	fs.closeSync(fd);
	out.push(rest);
	return JSON.parse(Buffer.from(out.join('\n'), 'latin1').toString('utf8'));
}

function attrValue(a) {
	// what each AttributeType keeps; absent scalars are their defaults
	switch (a.type) {
	case 'FLOAT': return a.f || 0;
	case 'INT': return a.i || 0;
	case 'STRING': return a.s || '';
	case 'FLOATS': return a.floats || [];
	case 'INTS': return a.ints || [];
	case 'STRINGS': return a.strings || [];
	case 'TENSOR': return tensorKey(a.t || {});
	case 'GRAPH': return 'graph';   // compared as a graph of its own
	default: return `unsupported attribute type ${a.type}`;
	}
}

function tensorKey(t) {
	const raw = t.raw_data || { bytes: 0, hash: 0 };
	return { data_type: t.data_type, dims: t.dims || [], bytes: raw.bytes, hash: raw.hash };
}

function nodes(g) {
	const byName = new Map(), byIndex = new Map();
	for (const n of g.nodes || []) {
		const attrs = {};
		const graphs = {};
		for (const a of n.attributes || []) {
			attrs[a.name] = [a.type, attrValue(a)];
			if (a.type === 'GRAPH') graphs[a.name] = a.g || {};
		}
		const sorted = {};
		for (const k of Object.keys(attrs).sort()) sorted[k] = attrs[k];
		byName.set(n.name, {
			op_type: n.op_type, domain: n.domain || '', since_version: n.since_version || 0,
			inputs: n.inputs || [], outputs: n.outputs || [],
			input_arg_counts: n.input_arg_counts || [],
			// a set: ORT lists them in the order of a hash table
			implicit_inputs: [...(n.implicit_inputs || [])].sort(), attributes: sorted,
			graphs,
		});
		byIndex.set(n.index || 0, n.name);
	}
	return { byName, byIndex };
}

function edges(g, byIndex) {
	const set = new Set();
	for (const e of g.node_edges || []) {
		const me = byIndex.get(e.node_index || 0);
		for (const x of e.input_edges || [])
			set.add(`${byIndex.get(x.node_index || 0)}:${x.src_arg_index || 0} -> ` +
				`${me}:${x.dst_arg_index || 0}`);
		for (const x of e.output_edges || [])
			set.add(`${me}:${x.src_arg_index || 0} -> ` +
				`${byIndex.get(x.node_index || 0)}:${x.dst_arg_index || 0} (out)`);
	}
	return set;
}

function resolver(d) {
	const out = {};
	const r = d.kernel_type_str_resolver || {};
	for (const op of r.op_kernel_type_str_args || []) {
		const m = {};
		for (const k of op.kernel_type_str_args || [])
			m[k.kernel_type_str] = (k.args || [])
				.map((a) => `${a.arg_type || 'INPUT'}${a.index || 0}`).sort();
		out[op.op_id] = m;
	}
	return out;
}

function nodeArgs(g) {
	const m = new Map();
	for (const v of g.node_args || []) {
		const t = v.type && v.type.value;
		const dims = t && t.shape ? (t.shape.dim || []).map((x) => {
			const dv = x.value || {};
			return dv.dim_type === 'VALUE' ? (dv.dim_value || 0) : null;
		}) : null;
		m.set(v.name, { elem_type: t ? t.elem_type : undefined, dims });
	}
	return m;
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// Graph ga (onnxc's) against gb (ORT's); subgraphs of Graph attributes too.
function compareGraph(ga, gb, where, diff) {
	const na = nodes(ga), nb = nodes(gb);
	for (const [name, a] of na.byName) {
		const b = nb.byName.get(name);
		if (!b) { diff(`${where}node ${name} (${a.op_type}) only in onnxc's file`); continue; }
		for (const k of Object.keys(a))
			if (k === 'graphs')
				for (const [at, sub] of Object.entries(a.graphs))
					compareGraph(sub, b.graphs[at] || {}, `${where}${name}.${at}: `, diff);
			else if (!same(a[k], b[k]))
				diff(`${where}node ${name} (${a.op_type}) ${k}: onnxc ${JSON.stringify(a[k])}` +
					` ORT ${JSON.stringify(b[k])}`);
	}
	for (const [name, b] of nb.byName)
		if (!na.byName.has(name)) diff(`${where}node ${name} (${b.op_type}) only in ORT's file`);
	if ((ga.max_node_index || 0) !== na.byName.size)
		diff(`${where}max_node_index ${ga.max_node_index} for ${na.byName.size} nodes`);

	const ea = edges(ga, na.byIndex), eb = edges(gb, nb.byIndex);
	for (const x of ea) if (!eb.has(x)) diff(`${where}edge ${x} only in onnxc's file`);
	for (const x of eb) if (!ea.has(x)) diff(`${where}edge ${x} only in ORT's file`);

	const ia = new Map((ga.initializers || []).map((t) => [t.name, tensorKey(t)]));
	const ib = new Map((gb.initializers || []).map((t) => [t.name, tensorKey(t)]));
	for (const n of new Set([...ia.keys(), ...ib.keys()]))
		if (!same(ia.get(n), ib.get(n)))
			diff(`${where}initializer ${n}: onnxc ${JSON.stringify(ia.get(n))} ORT ` +
				`${JSON.stringify(ib.get(n))}`);
	for (const k of ['inputs', 'outputs'])
		if (!same(ga[k] || [], gb[k] || []))
			diff(`${where}graph ${k}: onnxc ${JSON.stringify(ga[k])} ORT ${JSON.stringify(gb[k])}`);

	// ORT keeps the node_arg of an initializer it drops for being unused
	const usedB = new Set([...(gb.inputs || []), ...(gb.outputs || []),
		...(gb.initializers || []).map((t) => t.name)]);
	for (const n of gb.nodes || [])
		for (const x of [...(n.inputs || []), ...(n.outputs || [])]) usedB.add(x);
	const va = nodeArgs(ga), vb = nodeArgs(gb);
	for (const n of new Set([...va.keys(), ...vb.keys()])) {
		const a = va.get(n), b = vb.get(n);
		if (!a && !usedB.has(n)) continue;
		if (!a || !b) { diff(`${where}node_arg '${n}' only in ${a ? "onnxc's" : "ORT's"} file`); continue; }
		if (a.elem_type !== b.elem_type)
			diff(`${where}node_arg ${n}: elem_type ${a.elem_type} vs ORT ${b.elem_type}`);
		if (a.dims && b.dims && (a.dims.length !== b.dims.length ||
		    a.dims.some((x, i) => x !== null && b.dims[i] !== null && x !== b.dims[i])))
			diff(`${where}node_arg ${n}: dims ${JSON.stringify(a.dims)} vs ORT ` +
				`${JSON.stringify(b.dims)}`);
	}
	return { nodes: na.byName.size, edges: ea.size };
}

// The differences between onnxc's .ort (mine) and ONNX Runtime's own from onnxPath, and a
// summary; throws when a file does not load or decode.  dir: an empty scratch folder.
async function compareFiles(ort, onnxPath, mine, schemaIn, dir) {
	// flatc wants a schema file named *.fbs
	const schema = path.join(dir, 'ort.fbs');
	fs.copyFileSync(schemaIn, schema);
	const theirsPath = path.join(dir, 'theirs.ort');
	const s = await ort.InferenceSession.create(onnxPath, {
		graphOptimizationLevel: 'disabled', optimizedModelFilePath: theirsPath,
		logSeverityLevel: 3,
		extra: { session: { save_model_format: 'ORT' } },
	});
	if (s.release) await s.release();
	fs.mkdirSync(path.join(dir, 'a'));
	fs.mkdirSync(path.join(dir, 'b'));
	const A = decode(schema, mine, path.join(dir, 'a'));
	const B = decode(schema, theirsPath, path.join(dir, 'b'));
	const diffs = [];
	const diff = (msg) => diffs.push(msg);
	if (A.ort_version !== B.ort_version)
		diff(`ort_version ${A.ort_version} vs ${B.ort_version}`);
	const top = compareGraph(A.model.graph, B.model.graph, '', diff);
	const ra = resolver(A), rb = resolver(B);
	for (const id of new Set([...Object.keys(ra), ...Object.keys(rb)]))
		if (!same(ra[id], rb[id]))
			diff(`resolver ${id}: onnxc ${JSON.stringify(ra[id])} ORT ` +
				`${JSON.stringify(rb[id])}`);
	return { diffs, summary: `${top.nodes} nodes, ${top.edges} edges, ` +
		`${Object.keys(ra).length} resolver entries` };
}

async function inScratch(fn) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ort-compare-'));
	try {
		return await fn(dir);
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

// --batch SCHEMA.fbs: one 'NAME<TAB>MODEL.onnx<TAB>MODEL.ort' per line on stdin; one 'PASS NAME'
// or 'FAIL NAME: the first three differences' per line on stdout, in order (ort_vs_runtime.sh:
// one process and one load of ONNX Runtime for a whole folder of cases).
async function batch(schemaIn) {
	const ort = require('onnxruntime-node');
	const lines = fs.readFileSync(0, 'utf8').split('\n').filter((l) => l !== '');
	let failed = 0;
	for (const line of lines) {
		const [name, onnxPath, mine] = line.split('\t');
		if (mine === undefined) die(`ort_compare --batch: bad line '${line}'`, 2);
		let why;
		try {
			const r = await inScratch((dir) => compareFiles(ort, onnxPath, mine, schemaIn, dir));
			if (r.diffs.length)
				why = r.diffs.slice(0, 3).join(';');
		} catch (e) {
			why = String(e.message).split('\n')[0];
		}
		if (why) failed++;
		fs.writeSync(1, why ? `FAIL ${name}: ${why}\n` : `PASS ${name}\n`);
	}
	return failed ? 1 : 0;
}

async function main() {
	if (process.argv[2] === '--batch' && process.argv.length === 4)
		process.exit(await batch(process.argv[3]));
	const [onnxPath, mine, schemaIn] = process.argv.slice(2);
	if (!schemaIn) die('usage: node ort_compare.js MODEL.onnx MODEL.ort SCHEMA.fbs | --batch SCHEMA.fbs', 2);
	const ort = require('onnxruntime-node');
	const r = await inScratch((dir) => compareFiles(ort, onnxPath, mine, schemaIn, dir));
	if (r.diffs.length) {
		for (const x of r.diffs.slice(0, 40)) process.stderr.write(x + '\n');
		if (r.diffs.length > 40) process.stderr.write(`... ${r.diffs.length - 40} more\n`);
		process.exit(1);
	}
	process.stdout.write(`same: ${r.summary}\n`);
}

main().catch((e) => die(`ort_compare: ${e.message}`, 2));
