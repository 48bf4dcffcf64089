#!/usr/bin/env python3
"""plan_table.py DIR: the table of bench/plan_report.sh from a directory of `vkinfer plan
--json` outputs (one MODEL.json each), for runs made where the table cannot be printed."""
import json, os, sys
d = sys.argv[1]
names = ['naive', 'greedy_by_size', 'greedy_by_breadth', 'min_cost_flow', 'arena']
head = ['model'] + names + ['fast', 'bound', 'best', 'in place', 'chosen', 'final', 'final/bound', 'plan ms']
rows = []
for f in sorted(x for x in os.listdir(d) if x.endswith(".json")):
    j = json.load(open(os.path.join(d, f)))
    stored, inplace = j['stored_order'], j['in_place']
    plans = {p['strategy']: p for p in stored['plans']}
    best = {p['strategy']: p for p in j['plans']}['best']
    mb = lambda b: '%.3f' % (b / 1e6)
    rows.append([f[:-5]] + [mb(plans[n]['total_bytes']) for n in names] +
                [mb(min(plans[n]['total_bytes'] for n in names[1:])),
                 mb(stored['lower_bound_bytes']), mb(plans['best']['total_bytes']),
                 mb(inplace['lower_bound_bytes']), mb(j['lower_bound_bytes']),
                 mb(best['total_bytes']) + ' (' + best['chosen'] + ')',
                 '%.3f' % (best['total_bytes'] / stored['lower_bound_bytes']),
                 '%.3f' % best['plan_ms']])
w = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
for r in [head] + rows:
    print('  '.join(str(c).rjust(w[i]) if i else str(c).ljust(w[i]) for i, c in enumerate(r)))
