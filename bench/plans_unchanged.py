#!/usr/bin/env python3
"""Compares two runs of bench/plans_unchanged.sh: every results cell's step time, OOM
verdict, peak memory and error (wall times aside), and every plan written.
Usage: plans_unchanged.py BEFORE_DIR AFTER_DIR"""
import json
import os
import sys


def load(path):
    out = {}
    for row in json.load(open(path))['rows']:
        for method, v in row['methods'].items():
            out[(row['row'], method)] = (v['step_time_us'], v['oom'], tuple(v['peak_memory']), v['error'])
    return out


before, after = sys.argv[1], sys.argv[2]
for name in ['baselines', 'transfer', 'finetune']:
    if not os.path.exists(f'{before}/{name}.json'):
        print(f'{name}: not in {before}')
        continue
    a, b = load(f'{before}/{name}.json'), load(f'{after}/{name}.json')
    diff = [k for k in a if a[k] != b.get(k)]
    print(f'{name}: {len(a)} cells before, {len(b)} after, identical {len(a) - len(diff)}, different {len(diff)}')
    for k in diff[:10]:
        print('  ', k, a.get(k), b.get(k))
for name in ['first', 'ft-optimize', 'ck1', 'ck2', 'colocrl', 'hdp']:
    if not os.path.exists(f'{before}/{name}.json'):
        print(f'{name} plan: not in {before}')
        continue
    pa, pb = json.load(open(f'{before}/{name}.json')), json.load(open(f'{after}/{name}.json'))
    for k in ['device', 'priority', 'fuse_with_producer']:
        print(f'{name} plan', k, 'identical' if pa[k] == pb[k] else 'DIFFERENT', len(pa[k]))
