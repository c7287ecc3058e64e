#!/usr/bin/env python3
"""From a cold start: CPU per request in windows at a constant rate (the warm-up curve), the
steady state over the second half, idle CPU just after start and once warm."""
import os, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *
ap = parser(__doc__)
ap.add_argument('--secs', type=int, default=240)
ap.add_argument('--window', type=int, default=20)
ap.add_argument('--idle', type=int, default=30)
a = ap.parse_args()
with cluster(a) as pids:
    idle(pids, a.idle, 'idle after start (all nodes)')
    ws = load(a, a.rate, a.secs, 'load')
    start_t = time.time(); prev = sample(pids); prev_t = start_t
    steady_a = None
    while time.time() - start_t < a.secs - 1:
        time.sleep(a.window)
        cur = sample(pids); now = time.time()
        g = diff(prev, cur)
        reqs = a.rate * (now - prev_t)
        tot = sum(v[0] for v in g.values()) / TICK
        print(f'  window {prev_t-start_t:5.0f}-{now-start_t:5.0f}s: {tot*1e6/reqs:6.0f} us/req  C2+C1 {(g["C2"][0]+g["C1"][0])/TICK*1e6/reqs:5.0f}  sw/req {sum(v[1] for v in g.values())/reqs:.2f}')
        sys.stdout.flush()
        if steady_a is None and now - start_t >= a.secs / 2:
            steady_a = (cur, now)
        prev, prev_t = cur, now
    for w in ws: w.wait()
    if steady_a:
        report(f'steady {steady_a[1]-start_t:.0f}s..{prev_t-start_t:.0f}s', diff(steady_a[0], prev), prev_t - steady_a[1], a.rate * (prev_t - steady_a[1]))
    print(pct(a.out, 'load', a.nodes))
    idle(pids, a.idle, 'idle once warm')
