#!/usr/bin/env python3
"""partition_cost.py [--runs N] [--warmup N] [--rounds N] VKINFER OUT_DIR

What a CPU <-> GPU boundary costs. Writes chain models into OUT_DIR and times them with
`VKINFER run --with-io` (median of N runs after the warm-up, input copy included):

  gpu_B.tflite   B + 1 GPU stages (x -> MUL -> ADD -> ..., [1, 4, 4, 8]) and nothing on the CPU
  cpu_B.tflite   the same stages with a TOPK_V2 (k = 8 of 8: a sort of each row, 16 rows)
                 between each two: B CPU ops, so B + 1 GPU segments and 2 B crossings

for B in 1, 2, 4, 8. Each CPU op costs about a microsecond itself (the profile's "cpu"
entries say how much); the rest of cpu_B - gpu_B is the boundaries: a GPU segment's submit
and wait, its I/O conversions, the copies. Prints one line per model and the cost per
CPU op (one GPU -> CPU -> GPU round trip), the slope of a least-squares fit, per round.
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'tests'))
sys.path.insert(0, os.path.join(HERE, '..', 'tests', 'op_models'))
import specs  # noqa: E402
import tflite_writer  # noqa: E402

SHAPE = [1, 4, 4, 8]


def chain(boundaries, with_cpu):
    g = specs.Graph(7)
    t = g.input(SHAPE)
    for b in range(boundaries + 1):
        t = g.op('MUL', [t, g.const([8], 0.5, 1.5)], SHAPE)
        t = g.op('ADD', [t, g.const([8])], SHAPE)
        if b < boundaries and with_cpu:
            v, i = g.op('TOPK_V2', [t, g.ints([8], [])], [SHAPE, SHAPE])
            g.tensors[i]['type'] = 'int32'
            t = v
        elif b < boundaries:
            t = g.op('NEG', [t], SHAPE)
    g.output(t)
    return tflite_writer.write_model(g.spec())


def median_ms(vkinfer, model, runs, warmup):
    out = subprocess.run([vkinfer, 'run', model, '--with-io', '--runs', str(runs), '--warmup',
                          str(warmup)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    m = re.search(r'latency: median ([0-9.]+) ms.*?p10 ([0-9.]+), p90 ([0-9.]+)', out.stdout)
    if out.returncode or not m:
        sys.exit('%s failed:\n%s' % (model, out.stdout[-2000:]))
    return float(m.group(1)), float(m.group(2)), float(m.group(3))


def main():
    args = sys.argv[1:]
    opts = {'--runs': 200, '--warmup': 20, '--rounds': 2}
    while args and args[0] in opts:
        opts[args[0]] = int(args[1])
        args = args[2:]
    if len(args) != 2:
        sys.exit(__doc__)
    vkinfer, out = args
    os.makedirs(out, exist_ok=True)
    counts = [1, 2, 4, 8]
    for b in counts:
        for cpu in (0, 1):
            with open(os.path.join(out, '%s_%d.tflite' % ('cpu' if cpu else 'gpu', b)), 'wb') as f:
                f.write(chain(b, cpu))
    for r in range(opts['--rounds']):
        xs, ys = [], []
        for b in counts:
            g = median_ms(vkinfer, os.path.join(out, 'gpu_%d.tflite' % b), opts['--runs'], opts['--warmup'])
            c = median_ms(vkinfer, os.path.join(out, 'cpu_%d.tflite' % b), opts['--runs'], opts['--warmup'])
            print('round %d  B=%d  gpu-only %.4f ms (p10 %.4f, p90 %.4f)  with %d CPU ops %.4f ms '
                  '(p10 %.4f, p90 %.4f)  difference %.1f us' % (r, b, g[0], g[1], g[2], b, c[0],
                                                                c[1], c[2], (c[0] - g[0]) * 1e3))
            xs.append(b)
            ys.append((c[0] - g[0]) * 1e3)
        n = len(xs)
        mx, my = sum(xs) / n, sum(ys) / n
        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
        print('round %d: %.1f us per CPU op (GPU -> CPU -> GPU), least-squares slope over B = %s'
              % (r, slope, counts))


if __name__ == '__main__':
    main()
