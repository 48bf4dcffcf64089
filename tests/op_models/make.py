#!/usr/bin/env python3
"""make.py NODE_MODULES [OUT_DIR]: writes the op models of specs.py and the real TFLite
interpreter's outputs for them into OUT_DIR (default tests/data/op_models), which
tests/test_op_models.c reads.

NODE_MODULES is a node_modules directory holding @litertjs/core (LiteRT.js); run_litert.mjs,
beside this file, runs the models with it under `node`. For each model: NAME.tflite, NAME.in<i>.f32
(its inputs, seeded uniform values in the spec's ranges), NAME.out<i>.f32 (LiteRT's outputs,
raw little-endian float32), and one line of manifest.txt: NAME, input count, output count,
the input and output shapes (in=[..];[..] out=..., [] for rank 0) and the ops used (ops=A,B).
The files are deterministic: rerunning rewrites the same bytes.
"""
import os
import random
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


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    runner = os.path.join(HERE, 'run_litert.mjs')
    out_dir = sys.argv[2] if len(sys.argv) == 3 else os.path.join(HERE, '..', 'data', 'op_models')
    os.makedirs(out_dir, exist_ok=True)
    manifest, jobs = [], []
    for index, (name, build) in enumerate(specs.MODELS):
        g = specs.Graph(1000 + index)
        build(g)
        data = tflite_writer.write_model(g.spec())
        model = os.path.join(out_dir, name + '.tflite')
        with open(model, 'wb') as f:
            f.write(data)
        rng = random.Random(2000 + index)
        inputs = []
        for i, (t, (lo, hi)) in enumerate(zip(g.inputs, g.ranges)):
            values = [rng.uniform(lo, hi) for _ in range(count(g.tensors[t]['shape']))]
            if t in g.input_transform:
                values = [g.input_transform[t](v) for v in values]
            path = os.path.join(out_dir, '%s.in%d.f32' % (name, i))
            with open(path, 'wb') as f:
                f.write(struct.pack('<%df' % len(values), *values))
            inputs.append(path)
        jobs.append({'model': model, 'inputs': inputs, 'prefix': os.path.join(out_dir, name)})
        shapes = lambda ts: ';'.join('[%s]' % ','.join(map(str, g.tensors[t]['shape'])) for t in ts)
        ops = sorted({op['op'] for op in g.ops})
        manifest.append('%s %d %d in=%s out=%s ops=%s' % (name, len(g.inputs), len(g.outputs),
                                                        shapes(g.inputs), shapes(g.outputs),
                                                        ','.join(ops)))
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
