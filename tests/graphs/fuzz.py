#!/usr/bin/env python3
"""fuzz.py: the random-graph differential tester. Generates valid TFLite graphs (gen.py),
runs them through the real TFLite interpreter (LiteRT, tests/op_models/run_litert.mjs) and
through vkinfer under every configuration (tests/graph_check.c), and reduces what fails.

  fuzz.py --check BUILD/tests/graph_check --ci 0:200           what CI runs (tests/meson.build)
  fuzz.py --check ... --seeds 0:300                             a fixed set
  fuzz.py --check ... --minutes 60 [--start N]                  fresh seeds for an hour
  fuzz.py --check ... --regress                                 the saved reduced cases
  options: --litert NODE_MODULES (default models/cache/litert/node_modules, which
           tools/fetch_models.sh installs), --batch N (graphs per process, 40), --quick
           (no leave-one-out builds), --reduce (shrink failures and save them as regression
           cases), --min-op N --min-pass N (fail when an op or pass is covered fewer times:
           CI's coverage floor), --keep DIR (leave the graphs there), --table (coverage table)

Every graph is checked by graph_check against LiteRT's outputs, the C references and its
metamorphic twins (graph_check.c lists them). A graph LiteRT refuses is a generator bug
and is counted as such; a graph vkinfer refuses is reported with vkinfer's message and
fails the run unless the message is one of ACCEPTED_REFUSALS (limits documented in
docs/ops.md). The reducer drops graph outputs, then ops (a dropped op's output becomes a
graph input, or a constant) while the first failing check stays the same, and saves the
smallest graph as tests/data/graphs/NAME.tflite with its inputs and LiteRT's outputs and a
line in tests/data/graphs/cases.txt, which `--regress` (and CI) runs from then on.
"""
import argparse
import collections
import json
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, '..', '..'))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, '..'))
import gen  # noqa: E402
import tflite_writer  # noqa: E402

RUNNER = os.path.join(ROOT, 'tests', 'op_models', 'run_litert.mjs')
REGRESS = os.path.join(ROOT, 'tests', 'data', 'graphs')
PASSES = ['activation', 'spatial_pad', 'residual', 'channel_pad', 'output_layout', 'dw_pw',
          'in_place', 'order', 'gate', 'pool_residual', 'squeeze', 'block']
CUSTOM = {'Convolution2DTransposeBias': 'CONVOLUTION_2D_TRANSPOSE_BIAS',
          'TFLite_Detection_PostProcess': 'DETECTION_POSTPROCESS'}   # op_list.h's names
# vkinfer's documented limits a generated graph may hit (docs/ops.md): reported, not failed.
ACCEPTED_REFUSALS = []


def write_f32(path, values):
    with open(path, 'wb') as f:
        f.write(struct.pack('<%df' % len(values), *values))


def write_case(d, name, spec, inputs):
    prefix = os.path.join(d, name)
    with open(prefix + '.tflite', 'wb') as f:
        f.write(tflite_writer.write_model(spec))
    paths = []
    for i, v in enumerate(inputs):
        write_f32('%s.in%d.f32' % (prefix, i), v)
        paths.append('%s.in%d.f32' % (prefix, i))
    return prefix, paths


def run_litert(node_modules, jobs, work):
    """Runs the jobs in one Node process (again after a crash, for the rest); returns
    {prefix: None | error}."""
    results = {}
    pending = list(jobs)
    while pending:
        job_file = os.path.join(work, 'jobs.json')
        with open(job_file, 'w') as f:
            json.dump(pending, f)
        p = subprocess.run(['node', RUNNER, '--keep-going', node_modules, job_file],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        done = set()
        for line in p.stdout.splitlines():
            m = re.match(r'^(\S+)\.tflite: (\d+) output', line)
            if m:
                done.add(m.group(1))
        errors = {}
        for line in p.stderr.splitlines():
            m = re.match(r'^(\S+)\.tflite: LiteRT failed: (.*)', line)
            if m:
                errors[m.group(1)] = m.group(2)[:300]
        rest = []
        crashed = False
        for job in pending:
            base = os.path.basename(job['prefix'])
            if base in done:
                results[job['prefix']] = None
            elif base in errors:
                results[job['prefix']] = errors[base]
            elif not crashed:
                # The process died on this one (a wasm abort): count it and go on after it.
                results[job['prefix']] = 'LiteRT crashed: ' + (p.stderr.strip().splitlines() or ['?'])[-1][:300]
                crashed = True
            else:
                rest.append(job)
        pending = rest
    return results


def run_check(check, entries, work, quick):
    """entries: [(prefix, n_in, n_out, flags)]; returns {prefix: (status, detail)}."""
    lst = os.path.join(work, 'list.txt')
    with open(lst, 'w') as f:
        for e in entries:
            f.write('%s %d %d %s\n' % e)
    cmd = [check] + (['--quick'] if quick else []) + [lst]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out = {}
    for line in p.stdout.splitlines():
        m = re.match(r'^RESULT (\S+) (ok|FAIL|REFUSED) ?(.*)$', line)
        if m:
            out[m.group(1)] = (m.group(2), m.group(3))
    for e in entries:
        if e[0] not in out:
            tail = (p.stderr.strip().splitlines() or ['no output'])[-3:]
            out[e[0]] = ('FAIL', 'crash: graph_check exited %d: %s' % (p.returncode, ' | '.join(tail)))
            break   # the rest of the batch did not run: the caller retries them
    return out


def flags_of(case):
    return ('h' if case.fp16_ok else '') + ('q' if case.int8 else '') or '-'


def check_specs(args, items, work):
    """items: [(name, spec, inputs, flags)] -> {name: (status, detail)} with status one of
    ok, FAIL, REFUSED, INVALID (LiteRT refused: a generator bug)."""
    jobs, entries, results = [], {}, {}
    for name, spec, inputs, flags in items:
        prefix, paths = write_case(work, name, spec, inputs)
        jobs.append({'model': prefix + '.tflite', 'inputs': paths, 'prefix': prefix})
        entries[prefix] = (prefix, len(spec['inputs']), len(spec['outputs']), flags)
    lite = run_litert(args.litert, jobs, work)
    todo = []
    for prefix, err in lite.items():
        if err:
            results[os.path.basename(prefix)] = ('INVALID', err)
        else:
            todo.append(entries[prefix])
    while todo:
        got = run_check(args.check, todo, work, args.quick)
        rest = []
        for e in todo:
            if e[0] in got:
                results[os.path.basename(e[0])] = got[e[0]]
            else:
                rest.append(e)
        todo = rest
    return results


def first_check(detail):
    m = re.match(r'^([^:]+):', detail)
    return m.group(1) if m else detail


# ---- reducer -----------------------------------------------------------------------------

tensor_count = gen.numel


def prune(spec, inputs):
    """Drops ops whose outputs nobody reads and that make no graph output, then unused
    inputs. Returns (spec, inputs)."""
    spec = json.loads(json.dumps(spec))
    while True:
        read = set(spec['outputs'])
        for op in spec['ops']:
            read.update(i for i in op['inputs'] if i >= 0)
        keep = [op for op in spec['ops'] if any(o in read for o in op['outputs'])]
        if len(keep) == len(spec['ops']):
            break
        spec['ops'] = keep
    read = set(spec['outputs'])
    for op in spec['ops']:
        read.update(op['inputs'])
    ins, vals = [], []
    for t, v in zip(spec['inputs'], inputs):
        if t in read:
            ins.append(t)
            vals.append(v)
    if not ins and spec['inputs']:
        ins, vals = spec['inputs'][:1], inputs[:1]
    spec['inputs'] = ins
    return compact(spec), vals


def compact(spec):
    """Drops tensors nothing refers to and renumbers the rest."""
    used = set(spec['inputs']) | set(spec['outputs'])
    for op in spec['ops']:
        used.update(i for i in op['inputs'] + op['outputs'] if i >= 0)
    order = sorted(used)
    new = {t: k for k, t in enumerate(order)}
    out = dict(spec)
    out['tensors'] = [spec['tensors'][t] for t in order]
    out['inputs'] = [new[t] for t in spec['inputs']]
    out['outputs'] = [new[t] for t in spec['outputs']]
    out['ops'] = [dict(op, inputs=[new[i] if i >= 0 else i for i in op['inputs']],
                       outputs=[new[o] for o in op['outputs']]) for op in spec['ops']]
    return out


def candidates(spec, inputs, rng):
    """Smaller graphs: one output kept; one op dropped, its outputs made graph inputs or
    constants."""
    out = []
    if len(spec['outputs']) > 1:
        for o in spec['outputs']:
            s = json.loads(json.dumps(spec))
            s['outputs'] = [o]
            out.append(prune(s, inputs))
    for k in range(len(spec['ops'])):
        op = spec['ops'][k]
        for mode in ('input', 'const'):
            s = json.loads(json.dumps(spec))
            del s['ops'][k]
            vals = [list(v) for v in inputs]
            ok = True
            for t in op['outputs']:
                tt = s['tensors'][t]
                if tt['type'] != 'float32':
                    ok = False
                    break
                n = tensor_count(tt['shape'])
                v = [rng.randrange(-16, 16) / 8.0 for _ in range(n)]
                if mode == 'input':
                    if t in s['outputs']:
                        ok = False
                        break
                    s['inputs'].append(t)
                    vals.append(v)
                else:
                    tt['data'] = v
                    if t in s['outputs']:
                        ok = False
                        break
            if ok and len(s['inputs']) <= 8:
                out.append(prune(s, vals))
    return out


def size_of(spec):
    return (len(spec['ops']), len(spec['outputs']), len(spec['inputs']))


def reduce_case(args, name, spec, inputs, flags, detail, work):
    want = first_check(detail)
    rng = random.Random(1)
    best, best_in, best_detail = spec, inputs, detail
    rounds = 0
    while rounds < 40:
        rounds += 1
        cands = candidates(best, best_in, rng)
        cands.sort(key=lambda c: size_of(c[0]))
        if not cands:
            break
        items = [('%s_r%d_%d' % (name, rounds, i), c[0], c[1], flags) for i, c in enumerate(cands)]
        res = check_specs(args, items, work)
        found = None
        for (cname, s, v, _), in zip([(it[0], it[1], it[2], it[3]) for it in items]):
            st, d = res.get(cname, ('?', ''))
            if st == 'FAIL' and first_check(d) == want and size_of(s) < size_of(best):
                found = (s, v, d)
                break
        if not found:
            break
        best, best_in, best_detail = found
    return best, best_in, best_detail


def save_regression(args, name, spec, inputs, flags, detail, work):
    os.makedirs(REGRESS, exist_ok=True)
    prefix, paths = write_case(REGRESS, name, spec, inputs)
    with open(prefix + '.json', 'w') as f:     # the spec, for people (tflite_writer.py reads it)
        json.dump(spec, f, indent=None, separators=(',', ':'))
        f.write('\n')
    res = run_litert(args.litert, [{'model': prefix + '.tflite', 'inputs': paths,
                                    'prefix': prefix}], work)
    if res.get(prefix):
        print('  could not save %s: LiteRT: %s' % (name, res[prefix]))
        return
    ops = ','.join(op.get('op', op.get('custom', '?')) for op in spec['ops'])
    line = '%s %d %d %s # %s: %s\n' % (name, len(spec['inputs']), len(spec['outputs']), flags,
                                       ops, detail[:160])
    with open(os.path.join(REGRESS, 'cases.txt'), 'a') as f:
        f.write(line)
    print('  saved tests/data/graphs/%s.tflite (%d ops: %s)' % (name, len(spec['ops']), ops))


# ---- coverage ----------------------------------------------------------------------------

def op_list():
    with open(os.path.join(ROOT, 'engine', 'ops', 'op_list.h'), encoding='utf-8') as f:
        text = f.read()
    builtin = re.findall(r'^\s*X\((\w+), \d+, \w+, ', text, re.M)
    custom = re.findall(r'^\s*X\((\w+), "', text, re.M)
    return builtin + custom


class Coverage:
    def __init__(self):
        self.op_graphs = collections.Counter()
        self.op_classes = collections.defaultdict(set)
        self.op_pass = collections.defaultdict(collections.Counter)
        self.pass_graphs = collections.Counter()

    def add(self, case, fired):
        ops = set(o['op'] if 'op' in o else CUSTOM.get(o.get('custom'), o.get('custom'))
                  for o in case.spec['ops'])
        for op in ops:
            self.op_graphs[op] += 1
            for p in fired:
                self.op_pass[op][p] += 1
        for op, cls in case.classes:
            self.op_classes[op].add(cls)
        for p in fired:
            self.pass_graphs[p] += 1

    def table(self):
        lines = ['| op | graphs | shape classes and forms | passes that fired (graphs) |',
                 '|---|---|---|---|']
        for op in op_list():
            classes = sorted(self.op_classes.get(op, ()))
            ranks = sorted({c for c in classes if re.match(r'^r\d', c)})
            other = [c for c in classes if c not in ranks]
            ps = ', '.join('%s %d' % (p, n) for p, n in sorted(self.op_pass[op].items()))
            lines.append('| %s | %d | %s | %s |' % (op, self.op_graphs.get(op, 0),
                                                   ' '.join(ranks + other)[:200], ps or '-'))
        lines.append('')
        lines.append('passes: ' + ', '.join('%s %d' % (p, self.pass_graphs.get(p, 0)) for p in PASSES))
        missing = [op for op in op_list() if not self.op_graphs.get(op)]
        lines.append('ops no graph covered: ' + (', '.join(missing) or 'none'))
        return '\n'.join(lines)


# ---- main --------------------------------------------------------------------------------

def run_seeds(args, seeds, work, cov, stats):
    cases = {}
    items = []
    for s in seeds:
        c = gen.generate(s)
        cases[c.name] = c
        items.append((c.name, c.spec, c.inputs, flags_of(c)))
    res = check_specs(args, items, work)
    for name, (st, detail) in sorted(res.items(), key=lambda kv: int(kv[0][1:])):
        c = cases[name]
        stats[st] += 1
        if st == 'ok':
            m = re.search(r'fired=(\S+)', detail)
            fired = [] if not m or m.group(1) == '-' else m.group(1).split(',')
            cov.add(c, fired)
        elif st == 'REFUSED' and any(re.search(a, detail) for a in ACCEPTED_REFUSALS):
            stats['accepted refusal'] += 1
            stats[st] -= 1
        else:
            print('%s %s: %s' % (name, st, detail[:600]))
            stats['failures'].append((name, st, detail))
            if args.reduce and st in ('FAIL', 'REFUSED'):
                spec, ins, d = reduce_case(args, name, c.spec, c.inputs, flags_of(c), detail, work)
                print('  reduced to %d ops, %d inputs, %d outputs: %s' % (
                    len(spec['ops']), len(spec['inputs']), len(spec['outputs']), d[:300]))
                save_regression(args, 'seed%d' % int(name[1:]), spec, ins, flags_of(c), d, work)


def emit(args):
    """Writes seeds A:B with LiteRT's outputs into args.emit and a list.txt of them (paths
    relative to that folder) for graph_check on a machine without Node (the GPU runs:
    bench/graphs_device.sh). Graphs LiteRT refuses are left out."""
    a, b = (int(x) for x in args.seeds.split(':'))
    os.makedirs(args.emit, exist_ok=True)
    lines, jobs, meta = [], [], {}
    for s in range(a, b):
        c = gen.generate(s)
        prefix, paths = write_case(args.emit, c.name, c.spec, c.inputs)
        jobs.append({'model': prefix + '.tflite', 'inputs': paths, 'prefix': prefix})
        meta[prefix] = '%s %d %d %s' % (c.name, len(c.spec['inputs']), len(c.spec['outputs']),
                                        flags_of(c))
    res = run_litert(args.litert, jobs, args.emit)
    for job in jobs:
        if res.get(job['prefix']) is None:
            lines.append(meta[job['prefix']])
    with open(os.path.join(args.emit, 'list.txt'), 'w') as f:
        f.write('\n'.join(lines) + '\n')
    print('%d graphs written to %s (%d refused by LiteRT)' % (len(lines), args.emit, len(jobs) - len(lines)))
    return 0


def regress(args, work):
    """Runs tests/data/graphs/cases.txt with every check; 1 when any fails or none ran."""
    entries = []
    with open(os.path.join(REGRESS, 'cases.txt')) as f:
        for line in f:
            line = line.split('#')[0].split()
            if len(line) >= 3:
                entries.append((os.path.join(REGRESS, line[0]), int(line[1]), int(line[2]),
                                line[3] if len(line) > 3 else '-'))
    got = run_check(args.check, entries, work, False)
    bad = [(k, v) for k, v in got.items() if v[0] != 'ok']
    for k, v in sorted(bad):
        print('%s %s: %s' % (os.path.basename(k), v[0], v[1][:600]))
    print('regression cases: %d, %d failed' % (len(entries), len(bad)))
    if len(got) < len(entries) or not entries:
        print('regression cases: %d did not run' % (len(entries) - len(got)))
        return 1
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--check', required=True)
    ap.add_argument('--litert', default=os.path.join(ROOT, 'models', 'cache', 'litert', 'node_modules'))
    ap.add_argument('--seeds')
    ap.add_argument('--minutes', type=float)
    ap.add_argument('--start', type=int, default=None)
    ap.add_argument('--batch', type=int, default=40)
    ap.add_argument('--quick', action='store_true')
    ap.add_argument('--reduce', action='store_true')
    ap.add_argument('--regress', action='store_true')
    ap.add_argument('--emit', metavar='DIR', help='with --seeds: only write the graphs and '
                    'LiteRT\'s outputs to DIR (and DIR/list.txt) for graph_check elsewhere')
    ap.add_argument('--ci', metavar='A:B', help='what CI runs: the saved cases, then seeds A:B '
                    'quick with the coverage floor (op 10, pass 20) and the table')
    ap.add_argument('--min-op', type=int, default=0)
    ap.add_argument('--min-pass', type=int, default=0)
    ap.add_argument('--keep')
    ap.add_argument('--table', action='store_true')
    ap.add_argument('--save', metavar='NAME', help='with --spec: keep it as regression case NAME')
    ap.add_argument('--note', help='with --save: the case\'s comment in cases.txt')
    ap.add_argument('--flags', help='with --spec: graph_check flags (default h)')
    ap.add_argument('--spec', help='check one spec (JSON, as tests/data/graphs/*.json) with '
                    'inputs drawn as the generator draws them, and say what failed')
    args = ap.parse_args()
    if not os.path.isdir(os.path.join(args.litert, '@litertjs', 'core')):
        sys.exit('fuzz.py: no @litertjs/core in %s (tools/fetch_models.sh installs it)' % args.litert)
    work = args.keep or tempfile.mkdtemp(prefix='vki-graphs-')
    os.makedirs(work, exist_ok=True)
    stats = collections.Counter()
    stats['failures'] = []
    cov = Coverage()
    t0 = time.time()
    try:
        if args.ci:
            # CI: the saved cases with every check, then the fixed seeds, quick, with the
            # coverage floor (VKI_GRAPHS=regress: the cases only).
            if regress(args, work):
                return 1
            if os.environ.get('VKI_GRAPHS') == 'regress':
                return 0
            args.seeds, args.quick, args.table = args.ci, True, True
            args.min_op, args.min_pass = args.min_op or 10, args.min_pass or 20
        if args.regress:
            return regress(args, work)
        if args.emit:
            return emit(args)
        if args.spec:
            with open(args.spec) as f:
                spec = json.load(f)
            rng = random.Random(0)
            ins = [[rng.randrange(-16, 16) / 8.0 for _ in range(tensor_count(spec['tensors'][t]['shape']))]
                   for t in spec['inputs']]
            flags = args.flags or 'h'
            res = check_specs(args, [('spec', spec, ins, flags)], work)
            print('%s %s' % res['spec'])
            if args.save:
                save_regression(args, args.save, spec, ins, flags, args.note or res['spec'][1], work)
            return 0 if res['spec'][0] == 'ok' else 1
        if args.seeds:
            a, b = (int(x) for x in args.seeds.split(':'))
            seeds = list(range(a, b))
            for i in range(0, len(seeds), args.batch):
                run_seeds(args, seeds[i:i + args.batch], work, cov, stats)
        else:
            start = args.start if args.start is not None else int(time.time()) % 1000000 * 1000
            deadline = t0 + 60 * (args.minutes or 1)
            s = start
            while time.time() < deadline:
                run_seeds(args, list(range(s, s + args.batch)), work, cov, stats)
                s += args.batch
                n = sum(stats[k] for k in ('ok', 'FAIL', 'REFUSED', 'INVALID'))
                print('seeds %d..%d: %d graphs in %.1f min, %.0f graphs/minute, %d failed' % (
                    start, s - 1, n, (time.time() - t0) / 60, n / max((time.time() - t0) / 60, 1e-9),
                    len(stats['failures'])), flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    n = sum(stats[k] for k in ('ok', 'FAIL', 'REFUSED', 'INVALID'))
    minutes = (time.time() - t0) / 60
    print('graphs: %d (%d ok, %d failed, %d refused by vkinfer, %d refused by LiteRT), '
          '%.1f minutes, %.0f graphs/minute' % (n, stats['ok'], stats['FAIL'], stats['REFUSED'],
                                                stats['INVALID'], minutes, n / max(minutes, 1e-9)))
    if args.table:
        print(cov.table())
    short = []
    if args.min_op:
        short += ['%s %d' % (op, cov.op_graphs.get(op, 0)) for op in op_list()
                  if op not in gen.NOT_GENERATED and cov.op_graphs.get(op, 0) < args.min_op]
    if args.min_pass:
        short += ['%s %d' % (p, cov.pass_graphs.get(p, 0)) for p in PASSES
                  if cov.pass_graphs.get(p, 0) < args.min_pass]
    if short:
        print('coverage below the floor (op >= %d, pass >= %d graphs): %s' % (
            args.min_op, args.min_pass, ', '.join(short)))
    return 1 if stats['failures'] or short else 0


if __name__ == '__main__':
    sys.exit(main())
