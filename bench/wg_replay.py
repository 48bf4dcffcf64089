#!/usr/bin/env python3
"""wg_replay.py SWEEP.csv SWEEP.txt [MAX_INVOCATIONS]: replays search variants on the
timings of a bench/wg_sweep run (its --csv file and its printed table, which gives each
dispatch's table start), so that margins, start points and neighbourhoods are compared on
the same numbers without device time. Prints, per variant, how many dispatches land within
5% of the sweep's best, how many use at most 15% of the sweep's evaluations, and both.
The variant 'margin 0.01, starts wide+deep' is tuner/search.c's default."""
import csv, os, sys
from collections import defaultdict

rows = list(csv.DictReader(open(sys.argv[1])))
MAXINV = int(sys.argv[3]) if len(sys.argv) > 3 else 1024
MAXS = (1024, 1024, 64)
T, G = defaultdict(dict), {}
for r in rows:
    k = (os.path.basename(r['model']), r['dispatch'])
    T[k][(int(r['x']), int(r['y']), int(r['z']))] = float(r['ms'])
    G[k] = (int(r['gx']), int(r['gy']), int(r['gz']))
START = {}
for line in open(sys.argv[2]):
    f = line.split()
    if not f or line.startswith(('#', 'model:')):
        continue
    label, disp = f[0].rsplit(':', 1)
    for k in T:
        if k[0].startswith(label) and k[1] == disp:
            START[k] = tuple(int(v) for v in f[3].split('x'))

def p2(v):
    p = 1
    while p < v:
        p *= 2
    return p

def neighbours(grid, wg, diagonal):
    out, total = [], wg[0] * wg[1] * wg[2]
    for a in range(3):
        if wg[a] < grid[a] and wg[a] * 2 <= MAXS[a] and total * 2 <= MAXINV:
            out.append(tuple(v * 2 if i == a else v for i, v in enumerate(wg)))
        if wg[a] > 1:
            out.append(tuple(v // 2 if i == a else v for i, v in enumerate(wg)))
    if diagonal:   # move threads from one axis to another
        for a in range(3):
            for b in range(3):
                if a != b and wg[b] > 1 and wg[a] < grid[a] and wg[a] * 2 <= MAXS[a]:
                    out.append(tuple(v * 2 if i == a else v // 2 if i == b else v for i, v in enumerate(wg)))
    return out

def search(k, margin, starts, diagonal, budget=24):
    times, grid, seen, ev = T[k], G[k], set(), 0
    def measure(w):
        nonlocal ev
        ev += 1
        return times.get(w, -1)
    cur = START[k]
    seen.add(cur)
    cur_ms = measure(cur)
    for s in starts:
        s = tuple(min(s[a], p2(grid[a])) for a in range(3))
        if ev >= budget or s in seen:
            continue
        seen.add(s)
        m = measure(s)
        if 0 <= m < cur_ms * (1 - margin):
            cur, cur_ms = s, m
    while ev < budget:
        best, best_ms = None, -1
        for n in neighbours(grid, cur, diagonal):
            if ev >= budget or n in seen:
                continue
            seen.add(n)
            m = measure(n)
            if m >= 0 and (best_ms < 0 or m < best_ms):
                best, best_ms = n, m
        if best is None or best_ms >= cur_ms * (1 - margin):
            break
        cur, cur_ms = best, best_ms
    return cur, ev

WIDE_DEEP = [(64, 2, 1), (8, 4, 4)]
FIVE = [(64, 1, 1), (8, 8, 1), (4, 4, 4), (32, 4, 1), (16, 2, 2)]
VARIANTS = [('margin 0.05, table start (the old default)', 0.05, [], False),
            ('margin 0.02, table start', 0.02, [], False),
            ('margin 0.01, table start', 0.01, [], False),
            ('margin 0.05, starts wide+deep', 0.05, WIDE_DEEP, False),
            ('margin 0.02, starts wide+deep', 0.02, WIDE_DEEP, False),
            ('margin 0.01, starts wide+deep (default)', 0.01, WIDE_DEEP, False),
            ('margin 0.01, starts wide+deep, diagonal', 0.01, WIDE_DEEP, True),
            ('margin 0, five starts, diagonal', 0.0, FIVE, True)]
print('%-44s %9s %9s %6s %6s %6s' % ('variant', 'within5%', 'evals15%', 'both', 'worst', 'evals'))
for name, margin, starts, diagonal in VARIANTS:
    res = []
    for k in sorted(START):
        w, ev = search(k, margin, starts, diagonal)
        best = min(v for v in T[k].values() if v >= 0)
        res.append((T[k][w] / best, ev, len(T[k])))
    n = len(res)
    print('%-44s %6d/%-2d %6d/%-2d %3d/%-2d %6.3f %6.1f' % (
        name, sum(r <= 1.05 for r, e, s in res), n, sum(e <= 0.15 * s for r, e, s in res), n,
        sum(r <= 1.05 and e <= 0.15 * s for r, e, s in res), n, max(r for r, e, s in res),
        sum(e for r, e, s in res) / n))
