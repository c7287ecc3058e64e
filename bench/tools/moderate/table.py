#!/usr/bin/env python3
"""The cost at moderate rates in one go, for one jar: idle just after start; the warm-up curve from
a cold start (PUT at --warmup-rate in --window windows, the JIT's share, and the warm-up time: the
start of the first window from which every later one is within 20% of the steady value, the mean of
the last third); then, warm, PUT and GET held at each of --rates (after a settle at the rate): CPU
per request, context switches per request, p50/p99/p99.9, the rate achieved, errors (404s, keys not
yet written, apart from the rest, by the nodes' own count); and idle once warm. Prints markdown."""
import os, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *
ap = options(__doc__)
ap.add_argument('--idle', type=int, default=30)
ap.add_argument('--warmup-rate', type=int, default=1000)
ap.add_argument('--warmup', type=int, default=120)
ap.add_argument('--window', type=int, default=10)
ap.add_argument('--rates', default='1000,4000,12000')
ap.add_argument('--settle', type=int, default=10)
ap.add_argument('--hold', type=int, default=30)
a = ap.parse_args()

def warm_up_time(curve):
    tail = curve[len(curve) * 2 // 3:]
    steady = sum(c for _, c, _, _ in tail) / len(tail)
    start = curve[-1][0]
    for i in range(len(curve) - 1, -1, -1):
        if abs(curve[i][1] - steady) > 0.2 * steady:
            break
        start = curve[i][0]
    return steady, start

procs, ready = start(a.jar, a.out, extra_jvm=a.jvm, extra_flags=a.flag)
pids = [p.pid for p in procs]
rows = []
try:
    s0 = sample(pids); time.sleep(a.idle); cpu, _ = totals(diff(s0, sample(pids)))
    idle_start = cpu / a.idle * 100 / 3
    ws = wrk(os.path.join(HERE, 'put.lua'), a.warmup_rate, a.warmup, 3, a.out, 'warmup')
    curve = [(round(begin), *per_request(diff(before, after), a.warmup_rate * (end - begin)))
             for begin, end, before, after in windows(pids, a.window, a.warmup - a.window / 2)]
    for w in ws: w.wait()
    steady, warm_start = warm_up_time(curve)
    for script in ('put', 'get'):
        for rate in [int(r) for r in a.rates.split(',')]:
            tag = f'{script}-{rate}'
            before = answers()
            ws = wrk(os.path.join(HERE, script + '.lua'), rate, a.settle + a.hold, 3, a.out, tag)
            time.sleep(a.settle); s0 = sample(pids); t0 = time.time()
            for w in ws: w.wait()
            g = diff(s0, sample(pids)); secs = time.time() - t0
            cpu, sw = totals(g); done = achieved(a.out, tag) or rate
            p = pct(a.out, tag, 3)
            codes = answers() - before
            not_found = codes.get('404', 0)
            others = sum(n for code, n in codes.items() if not code.startswith('2') and code != '404')
            rows.append((script.upper(), rate, done, cpu * 1e6 / (done * secs), sw / (done * secs),
                         p.get('50.000%'), p.get('99.000%'), p.get('99.900%'), p['errors'],
                         not_found, others))
    time.sleep(5)
    s0 = sample(pids); time.sleep(a.idle); cpu, _ = totals(diff(s0, sample(pids)))
    idle_warm = cpu / a.idle * 100 / 3
finally:
    stop(procs)

print(f'# {a.jar} {" ".join(a.jvm + a.flag)}\n')
print(f'ready after {ready:.1f} s; idle: {idle_start:.1f}% of a core per node just after start, {idle_warm:.1f}% once warm\n')
print(f'warm-up at {a.warmup_rate}/s PUT from a cold start: steady {steady:.0f} µs/req; within 20% from {warm_start} s\n')
print('| window | CPU µs/req | of it JIT | ctx sw/req |\n| ---: | ---: | ---: | ---: |')
for t, c, j, s in curve:
    print(f'| {t}-{t + a.window} s | {c:.0f} | {j:.0f} | {s:.2f} |')
print('\n| request | rate | achieved | CPU µs/req | ctx sw/req | p50 ms | p99 ms | p99.9 ms | non-2xx | of them 404 | other non-2xx (the nodes) |')
print('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
for r in rows:
    print(f'| {r[0]} | {r[1]} | {r[2]:.0f} | {r[3]:.0f} | {r[4]:.2f} | {r[5]} | {r[6]} | {r[7]} | {r[8]} | {r[9]} | {r[10]} |')
print('\n(non-2xx: what wrk2 counted; 404 and the others: the nodes\' own count of their answers by'
      ' status. A GET of a key no PUT wrote yet is 404: the keys are random among 100,000.)')
