#!/usr/bin/env node
// run_litert.mjs: runs .tflite models with LiteRT.js (@litertjs/core: TFLite's interpreter
// built for wasm, XNNPACK on one CPU thread) and writes their outputs as raw little-endian
// float32, for tests/op_models/make.py.
//
//   node run_litert.mjs NODE_MODULES MODEL.tflite OUT_PREFIX [IN0.f32 IN1.f32 ...]
//       feeds the raw float32 files to the model's inputs in order and writes
//       OUT_PREFIX.out<i>.f32 for each output i
//   node run_litert.mjs NODE_MODULES JOBS.json
//       the same for many models in one process: JOBS.json is a list of
//       {"model": PATH, "inputs": [PATH, ...], "prefix": OUT_PREFIX}
//       or of these two kinds:
//       {"model": PATH, "signatures": [{"key": K, "inputs": [[NAME, PATH], ...],
//                                       "outputs": [[NAME, OUT_PATH], ...]}, ...]}
//           runs each signature by its key with its inputs given by name, and writes
//           each output named to its path (the model compiled once for all of them);
//       {"model": PATH, "calls": [{"inputs": [PATH, ...], "prefix": OUT_PREFIX}, ...]}
//           runs the calls in order in ONE compiled model (one interpreter: resource
//           variables keep their values from call to call, CALL_ONCE runs once), writing
//           OUT_PREFIX.out<i>.f32 for each call.
//
// NODE_MODULES is a node_modules directory holding @litertjs/core (or that package's own
// directory). Input files are float32; a uint8 or int32 input (a quantized model's raw
// uint8 values, say) takes them converted, and they must be whole numbers in its range.
// Outputs of other types are converted to float32. (LiteRT.js has no int8 tensors.)
// A model LiteRT refuses, or an input of the wrong size, stops the run with exit status 1;
// with --keep-going first (tests/graphs/fuzz.py), it is reported on stderr as
// "<model>.tflite: LiteRT failed: <why>" and the run goes on with the next job.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

function coreDir(dir) {
  const nested = path.join(dir, '@litertjs', 'core');
  if (fs.existsSync(path.join(nested, 'package.json'))) return path.resolve(nested);
  const own = path.join(dir, 'package.json');
  if (fs.existsSync(own) && JSON.parse(fs.readFileSync(own, 'utf8')).name === '@litertjs/core')
    return path.resolve(dir);
  throw new Error(`${dir}: no @litertjs/core there`);
}

// The package loads its emscripten glue with importScripts() (as in a worker). In Node,
// evaluate that script with a require and file paths of its own, so that the glue takes
// its Node branch and reads the .wasm from disk.
function installImportScripts(require) {
  globalThis.self = globalThis;
  globalThis.importScripts = (url) => {
    const file = url instanceof URL || String(url).startsWith('file:') ? fileURLToPath(url) : String(url);
    const body = fs.readFileSync(file, 'utf8');
    const load = new Function('require', '__filename', '__dirname', body + '\n;return ModuleFactory;');
    globalThis.ModuleFactory = load(require, file, path.dirname(file));
  };
}

function readF32(file) {
  const b = fs.readFileSync(file);
  if (b.byteLength % 4) throw new Error(`${file}: ${b.byteLength} bytes is not a whole number of float32`);
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}

// A LiteRT tensor of input `d` (details of a signature's input) from a raw float32 file.
function inputTensor(lrt, job, d, i, file) {
  const cast = { float32: null, uint8: Uint8Array, int32: Int32Array }[d.dtype];
  if (cast === undefined) throw new Error(`${job.model}: input ${i} is ${d.dtype}, not float32, uint8 or int32`);
  const shape = Array.from(d.shape);
  const raw = readF32(file);
  const [lo, hi] = cast === Uint8Array ? [0, 255] : [-(2 ** 31), 2 ** 31 - 1];
  if (cast && raw.some((v) => !Number.isInteger(v) || v < lo || v > hi))
    throw new Error(`${file}: input ${i} is ${d.dtype}, the file holds values that are not whole numbers in ${lo}..${hi}`);
  const data = cast ? cast.from(raw) : raw;
  const n = shape.reduce((a, b) => a * b, 1);
  if (data.length !== n) throw new Error(`${file}: ${data.length} floats, input ${i} needs ${n}`);
  return new lrt.Tensor(data, shape);
}

function writeOutput(t, file) {
  const a = t.toTypedArray();
  const f = a instanceof Float32Array ? a : Float32Array.from(a, Number);
  fs.writeFileSync(file, Buffer.from(f.buffer, f.byteOffset, f.byteLength));
  t.delete();
}

// Runs the default signature on the files `inputs` (in its input order); writes PREFIX.out<i>.f32.
async function runPositional(lrt, model, job, inputs, prefix) {
  const details = model.getInputDetails();
  if (details.length !== inputs.length)
    throw new Error(`${job.model}: ${details.length} inputs, ${inputs.length} files given`);
  const tensors = details.map((d, i) => inputTensor(lrt, job, d, i, inputs[i]));
  const outs = await model.run(tensors);
  outs.forEach((t, i) => writeOutput(t, `${prefix}.out${i}.f32`));
  tensors.forEach((t) => t.delete());
  return outs.length;
}

async function runSignature(lrt, model, job, sig) {
  const runner = model.signatures[sig.key];
  if (!runner) throw new Error(`${job.model}: no signature ${sig.key} (it has ${Object.keys(model.signatures).join(', ')})`);
  const details = runner.getInputDetails();
  const byName = Object.fromEntries(details.map((d) => [d.name, d]));
  if (details.length !== sig.inputs.length)
    throw new Error(`${job.model}: signature ${sig.key} has ${details.length} inputs, ${sig.inputs.length} files given`);
  const record = {};
  for (const [name, file] of sig.inputs) {
    if (!byName[name]) throw new Error(`${job.model}: signature ${sig.key} has no input ${name}`);
    record[name] = inputTensor(lrt, job, byName[name], byName[name].index, file);
  }
  const outs = await model.run(sig.key, record);
  for (const [name, file] of sig.outputs) {
    if (!outs[name]) throw new Error(`${job.model}: signature ${sig.key} gave no output ${name}`);
    writeOutput(outs[name], file);
  }
  Object.values(record).forEach((t) => t.delete());
  const order = (ds) => ds.map((d) => d.name).join(',');
  return `${sig.key}(${order(details)})->(${order(runner.getOutputDetails())})`;
}

async function runJob(lrt, job) {
  const model = await lrt.loadAndCompile(new Uint8Array(fs.readFileSync(job.model)), { accelerator: 'wasm' });
  let what;
  if (job.signatures) {
    const done = [];
    for (const sig of job.signatures) done.push(await runSignature(lrt, model, job, sig));
    what = `signatures ${done.join(' ')}`;
  } else if (job.calls) {
    for (const call of job.calls) await runPositional(lrt, model, job, call.inputs, call.prefix);
    what = `${job.calls.length} calls`;
  } else {
    what = `${await runPositional(lrt, model, job, job.inputs, job.prefix)} output(s)`;
  }
  model.delete();
  return what;
}

async function main() {
  let argv = process.argv.slice(2);
  const keepGoing = argv[0] === '--keep-going';
  if (keepGoing) argv = argv.slice(1);
  if (argv.length < 2 || (argv.length === 2 && !argv[1].endsWith('.json') && !argv[1].endsWith('.tflite'))) {
    console.error('usage: node run_litert.mjs NODE_MODULES MODEL.tflite OUT_PREFIX [IN.f32 ...]\n' +
                  '       node run_litert.mjs NODE_MODULES JOBS.json');
    process.exit(2);
  }
  if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) throw new Error('big-endian host');
  const core = coreDir(argv[0]);
  installImportScripts(createRequire(path.join(core, 'package.json')));
  const lrt = await import(path.join(core, 'dist', 'index.js'));
  // Node has no WebGPU: the package says so once on loading; that line is noise here.
  const warn = console.warn;
  console.warn = (...a) => { if (!String(a[0]).includes('WebGPU')) warn(...a); };
  await lrt.loadLiteRt(path.join(core, 'wasm') + '/');
  console.warn = warn;
  const jobs = argv[1].endsWith('.json')
    ? JSON.parse(fs.readFileSync(argv[1], 'utf8'))
    : [{ model: argv[1], prefix: argv[2], inputs: argv.slice(3) }];
  for (const job of jobs) {
    try {
      console.log(`${path.basename(job.model)}: ${await runJob(lrt, job)}`);
    } catch (e) {
      if (keepGoing) {
        console.error(`${path.basename(job.model)}: LiteRT failed: ${String(e && e.message || e).split('\n')[0]}`);
        continue;
      }
      console.error(`${path.basename(job.model)}: LiteRT failed: ${e && e.stack || e}`);
      process.exit(1);
    }
  }
}

await main();
