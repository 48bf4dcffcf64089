#!/usr/bin/env python3
"""make.py LITERT_DIR [OUT_DIR]: writes the op models of specs.py and the real TFLite
interpreter's outputs for them into OUT_DIR (default tests/data/op_models), which
tests/test_op_models.c reads.

LITERT_DIR holds LiteRT's reference runner, run_ref.mjs, with its node_modules
(@litertjs/core, installed by `npm ci` beside it). For each model: NAME.tflite, NAME.in<i>.f32
(its inputs, seeded uniform values in the spec's ranges), NAME.out<i>.f32 (LiteRT's outputs,
raw little-endian float32), and one line of manifest.txt: NAME, input count, output count.
The files are deterministic: rerunning rewrites the same bytes.
"""
import os
import random
import shutil
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
    runner = os.path.join(sys.argv[1], 'run_ref.mjs')
    out_dir = sys.argv[2] if len(sys.argv) == 3 else os.path.join(HERE, '..', 'data', 'op_models')
    os.makedirs(out_dir, exist_ok=True)
    manifest = []
    with tempfile.TemporaryDirectory() as work:
        for index, (name, build) in enumerate(specs.MODELS):
            g = specs.Graph(1000 + index)
            build(g)
            data = tflite_writer.write_model(g.spec())
            model = os.path.join(out_dir, name + '.tflite')
            with open(model, 'wb') as f:
                f.write(data)
            rng = random.Random(2000 + index)
            args = ['node', runner, model, '--out', work, '--warmup', '0', '--runs', '1']
            for i, (t, (lo, hi)) in enumerate(zip(g.inputs, g.ranges)):
                values = [rng.uniform(lo, hi) for _ in range(count(g.tensors[t]['shape']))]
                path = os.path.join(out_dir, '%s.in%d.f32' % (name, i))
                with open(path, 'wb') as f:
                    f.write(struct.pack('<%df' % len(values), *values))
                args += ['--input', path]
            run = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if run.returncode:
                sys.exit('%s: LiteRT failed:\n%s' % (name, run.stderr[-2000:]))
            for i in range(len(g.outputs)):
                shutil.copyfile(os.path.join(work, name, 'output_%d.f32' % i),
                                os.path.join(out_dir, '%s.out%d.f32' % (name, i)))
            manifest.append('%s %d %d' % (name, len(g.inputs), len(g.outputs)))
            print(name, 'ok')
    with open(os.path.join(out_dir, 'manifest.txt'), 'w') as f:
        f.write('\n'.join(manifest) + '\n')


if __name__ == '__main__':
    main()
