#!/usr/bin/env python3
"""make.py [--only PREFIX] NODE_MODULES [OUT_DIR]: writes the op models of specs.py and the real TFLite
interpreter's outputs for them into OUT_DIR (default tests/data/op_models), which
tests/test_op_models.c reads.

NODE_MODULES is a node_modules directory holding @litertjs/core (LiteRT.js); run_litert.mjs,
beside this file, runs the models with it under `node`. For each model: NAME.tflite, NAME.in<i>.f32
(its inputs, seeded uniform values in the spec's ranges), NAME.out<i>.f32 (LiteRT's outputs,
raw little-endian float32), and one line of manifest.txt: NAME, input count, output count,
the input and output shapes (in=[..];[..] out=..., [] for rank 0) and the ops used (ops=A,B).
Models of several subgraphs add subgraphs=N (ops= then lists the ops of all of them); a
model with signature defs gets, instead of NAME.in/out, NAME.sig_KEY.in<i>.f32 and
NAME.sig_KEY.out<i>.f32 per signature, in the SignatureDef's own order (run by name), and
signatures=KEY:INPUTS:OUTPUTS,...; a model with `calls` (resource variables) gets
NAME.call<k>.in<i>.f32 / .out<i>.f32 for calls k = 0.. in one interpreter, then
NAME.reset.in<i>.f32 (call `reset_from`'s inputs again) / .out<i>.f32 from a fresh one,
and calls=N reset=K. The files are deterministic: rerunning rewrites the same bytes.
--only PREFIX writes and runs only the models whose names start with PREFIX (the manifest
is written whole): for work on one module of specs.MODULES. A module with LITERT = False
(specs_recurrent: LiteRT refuses variable tensors) is written only that way, by its own
runner.
"""
import os
import importlib
import random
import zlib
import json
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..'))
sys.path.insert(0, HERE)
import tflite_writer  # noqa: E402
import specs  # noqa: E402


def count(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def all_models():
    """(name, builder, graph seed, input seed) of every model: specs.MODELS seeded by their
    index there, then each module of specs.MODULES (files beside specs.py) seeded by the
    model's name, so that those lists grow apart without moving each other's seeds."""
    out = [(name, build, 1000 + i, 2000 + i, True) for i, (name, build) in enumerate(specs.MODELS)]
    for module in specs.MODULES:
        mod = importlib.import_module(module)
        for name, build in mod.MODELS:
            seed = zlib.crc32(name.encode()) & 0xfffffff
            out.append((name, build, seed, seed + 1, getattr(mod, 'LITERT', True)))
    return out


def main():
    args = sys.argv[1:]
    only = None
    if len(args) >= 2 and args[0] == '--only':
        only, args = args[1], args[2:]
    if len(args) not in (1, 2):
        sys.exit(__doc__)
    sys.argv = [sys.argv[0]] + args
    runner = os.path.join(HERE, 'run_litert.mjs')
    out_dir = sys.argv[2] if len(sys.argv) == 3 else os.path.join(HERE, '..', 'data', 'op_models')
    os.makedirs(out_dir, exist_ok=True)
    manifest, jobs = [], []
    for name, build, graph_seed, input_seed, litert in all_models():
        g = specs.Graph(graph_seed)
        build(g)
        shapes = lambda ts: ';'.join('[%s]' % ','.join(map(str, g.tensors[t]['shape'])) for t in ts)
        # A module LiteRT cannot run (LITERT = False) writes its models with its own runner,
        # through --only: a full run keeps them as they are.
        if (only is not None and not name.startswith(only)) or (only is None and not litert):
            # Not written: only its manifest line (the same as a full run writes).
            extra = ''
            if g.signature_defs:
                extra = ' signatures=' + ','.join('%s:%d:%d' % (s['signature_key'], len(s['inputs']),
                                                                  len(s['outputs'])) for s in g.signature_defs)
            elif g.calls:
                extra = ' calls=%d reset=%d' % (g.calls, g.reset_from)
            if g.subgraphs:
                extra = ' subgraphs=%d' % (1 + len(g.subgraphs)) + extra
            ops = sorted({op.get('op') or op['custom'] for sub in [g] + g.subgraphs for op in sub.ops})
            manifest.append('%s %d %d in=%s out=%s ops=%s%s' % (name, len(g.inputs), len(g.outputs),
                                                              shapes(g.inputs), shapes(g.outputs),
                                                              ','.join(ops), extra))
            continue
        data = tflite_writer.write_model(g.spec())
        model = os.path.join(out_dir, name + '.tflite')
        with open(model, 'wb') as f:
            f.write(data)
        rng = random.Random(input_seed)

        def draw(graph, tensors, stem):
            """Draws the inputs `tensors` of `graph` in that order into STEM.in<i>.f32."""
            paths = []
            for i, t in enumerate(tensors):
                lo, hi = graph.ranges[graph.inputs.index(t)]
                values = [rng.uniform(lo, hi) for _ in range(count(graph.tensors[t]['shape']))]
                if t in graph.input_transform:
                    values = [graph.input_transform[t](v) for v in values]
                path = os.path.join(out_dir, '%s.in%d.f32' % (stem, i))
                with open(path, 'wb') as f:
                    f.write(struct.pack('<%df' % len(values), *values))
                paths.append(path)
            return paths

        extra = ''
        if g.signature_defs:
            # One set of files per signature, in the signature's own order; run by name.
            sigs = []
            for sig in g.signature_defs:
                sub, stem = g.graph(sig['subgraph_index']), '%s.sig_%s' % (name, sig['signature_key'])
                paths = draw(sub, [m['tensor_index'] for m in sig['inputs']], stem)
                sigs.append({'key': sig['signature_key'],
                             'inputs': [[m['name'], p] for m, p in zip(sig['inputs'], paths)],
                             'outputs': [[m['name'], os.path.join(out_dir, '%s.out%d.f32' % (stem, i))]
                                         for i, m in enumerate(sig['outputs'])]})
            jobs.append({'model': model, 'signatures': sigs})
            extra = ' signatures=' + ','.join('%s:%d:%d' % (s['signature_key'], len(s['inputs']),
                                                              len(s['outputs'])) for s in g.signature_defs)
        elif g.calls:
            # Calls 0..calls-1 in one interpreter, then call reset_from's inputs in a fresh one.
            calls = [{'inputs': draw(g, g.inputs, '%s.call%d' % (name, k)),
                      'prefix': os.path.join(out_dir, '%s.call%d' % (name, k))} for k in range(g.calls)]
            jobs.append({'model': model, 'calls': calls})
            reset = []
            for i, src in enumerate(calls[g.reset_from]['inputs']):
                reset.append(os.path.join(out_dir, '%s.reset.in%d.f32' % (name, i)))
                with open(src, 'rb') as f, open(reset[-1], 'wb') as o:
                    o.write(f.read())
            jobs.append({'model': model, 'inputs': reset, 'prefix': os.path.join(out_dir, name + '.reset')})
            extra = ' calls=%d reset=%d' % (g.calls, g.reset_from)
        else:
            inputs = draw(g, g.inputs, name)
            jobs.append({'model': model, 'inputs': inputs, 'prefix': os.path.join(out_dir, name)})
        if g.subgraphs:
            extra = ' subgraphs=%d' % (1 + len(g.subgraphs)) + extra
        ops = sorted({op.get('op') or op['custom'] for sub in [g] + g.subgraphs for op in sub.ops})
        manifest.append('%s %d %d in=%s out=%s ops=%s%s' % (name, len(g.inputs), len(g.outputs),
                                                          shapes(g.inputs), shapes(g.outputs),
                                                          ','.join(ops), extra))
    with tempfile.TemporaryDirectory() as work:
        job_file = os.path.join(work, 'jobs.json')
        with open(job_file, 'w') as f:
            json.dump(jobs, f)
        run = subprocess.run(['node', runner, sys.argv[1], job_file], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        if run.returncode:
            sys.exit('LiteRT failed:\n%s' % '\n'.join(l for l in run.stderr.splitlines()
                                                      if not l.startswith(('INFO:', 'WARNING:')))[-3000:])
    print(run.stdout, end='')
    with open(os.path.join(out_dir, 'manifest.txt'), 'w') as f:
        f.write('\n'.join(manifest) + '\n')


if __name__ == '__main__':
    main()
