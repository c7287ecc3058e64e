#!/usr/bin/env python3
"""The steady CPU per request at a constant rate (--rate), by thread pool, and idle CPU. Two ways
to the steady state:

  from a cold start (the default): idle CPU just after start; CPU µs per request in --window
    windows over --secs (default 240) from the first request, with the JIT's share and switches
    (the warm-up curve); the second half's account by pool; idle CPU once warm (--idle 30 s each).
  --warmed: the JIT warmed at --warm-rate for --warm s, then --settle s at the rate, then --secs
    (default 60) measured as one window, by pool; idle CPU once warm (--idle 20 s)."""
import os, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *
ap = parser(__doc__)
ap.add_argument('--warmed', action='store_true', help='warm the JIT first, measure one window')
ap.add_argument('--secs', type=int, help='seconds measured (240 from a cold start, 60 --warmed)')
ap.add_argument('--idle', type=int, help='seconds of each idle measurement (30, or 20 --warmed)')
ap.add_argument('--window', type=int, default=20, help='from a cold start: seconds a window')
ap.add_argument('--warm-rate', type=int, default=4000, help='--warmed: the rate that warms the JIT')
ap.add_argument('--warm', type=int, default=45, help='--warmed: seconds at --warm-rate')
ap.add_argument('--settle', type=int, default=20, help='--warmed: seconds at --rate not measured')
ap.add_argument('--label', default='', help='--warmed: printed with the result')
a = ap.parse_args()
a.secs = a.secs or (60 if a.warmed else 240)
a.idle = a.idle or (20 if a.warmed else 30)

def cold(pids):
    idle(pids, a.idle, 'idle after start (all nodes)')
    ws = load(a, a.rate, a.secs, 'load')
    half = last = None
    for begin, end, before, after in windows(pids, a.window, a.secs - 1):
        cpu, jit, sw = per_request(diff(before, after), a.rate * (end - begin))
        print(f'  window {begin:5.0f}-{end:5.0f}s: {cpu:6.0f} us/req  C2+C1 {jit:5.0f}  sw/req {sw:.2f}', flush=True)
        if half is None and end >= a.secs / 2:
            half = (after, end)
        last = (after, end)
    for w in ws: w.wait()
    if half:
        (s0, t0), (s1, t1) = half, last
        report(f'steady {t0:.0f}s..{t1:.0f}s', diff(s0, s1), t1 - t0, a.rate * (t1 - t0))
    print(pct(a.out, 'load', a.nodes))
    idle(pids, a.idle, 'idle once warm')

def warmed(pids):
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

with cluster(a) as pids:
    (warmed if a.warmed else cold)(pids)
