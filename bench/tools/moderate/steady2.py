#!/usr/bin/env python3
"""Warm the JIT at a higher rate, then measure the steady CPU per request at a moderate rate, per
thread pool, and idle CPU once warm."""
import os, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *
ap = parser(__doc__)
ap.add_argument('--label', default='')
ap.add_argument('--warm-rate', type=int, default=4000)
ap.add_argument('--warm', type=int, default=45)
ap.add_argument('--settle', type=int, default=20)
ap.add_argument('--secs', type=int, default=60)
ap.add_argument('--idle', type=int, default=20)
a = ap.parse_args()
with cluster(a) as pids:
    for w in load(a, a.warm_rate, a.warm, 'warm'): w.wait()
    ws = load(a, a.rate, a.settle + a.secs, 'load')
    time.sleep(a.settle)
    s0 = sample(pids); t0 = time.time()
    for w in ws: w.wait()
    s1 = sample(pids); t1 = time.time()
    print(f'== {a.label} rate={a.rate}')
    report('steady', diff(s0, s1), t1 - t0, a.rate * (t1 - t0))
    print(pct(a.out, 'load', a.nodes))
    time.sleep(5)
    idle(pids, a.idle, 'idle once warm')
