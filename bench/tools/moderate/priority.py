#!/usr/bin/env python3
"""RocksDB's background threads at the node's priority against nice 19, on one warm cluster: the
priority of every node's rocksdb:* threads is switched (renice, as root: raising it back needs it)
between holds at a constant rate, so the arms alternate on the same cluster, data and warm JIT.
Prints, per hold: CPU per request, p50/p99/p99.9, the rate served, the nodes' answers by status,
and the share of node-seconds RocksDB had writes stopped or slowed (sampled every second).
Modes: none (all at nice 0), low (compactions at 19), both (flushes and compactions at 19).
Loads: put (bench/tools/moderate/put.lua) or one of kvorum.lua's phases (mixed: 90/10 GET/PUT)."""
import os, sys, threading
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *
ap = options(__doc__, out='/tmp/kvorum-priority')
ap.add_argument('--load', default='put', help='put, or a phase of kvorum.lua (mixed, get)')
ap.add_argument('--rate', type=int, default=6000)
ap.add_argument('--connections', type=int, default=8, help='per node')
ap.add_argument('--warm', type=int, default=90, help='seconds of PUT at --rate (at most 6,000/s) first')
ap.add_argument('--hold', type=int, default=60)
ap.add_argument('--rounds', type=int, default=2)
ap.add_argument('--modes', default='none,low,both')
a = ap.parse_args()
LUA = os.path.join(ROOT, 'bench', 'src', 'main', 'resources', 'io', 'kvorum', 'bench', 'wrk2', 'kvorum.lua')
PUT = os.path.join(HERE, 'put.lua')

def renice(pids, mode):
    for pid in pids:
        for tid in os.listdir(f'/proc/{pid}/task'):
            try:
                comm = open(f'/proc/{pid}/task/{tid}/comm').read().strip()
            except OSError:
                continue
            if comm.startswith('rocksdb:'):
                low = mode == 'both' or (mode == 'low' and comm.startswith('rocksdb:low'))
                os.setpriority(os.PRIO_PROCESS, int(tid), 19 if low else 0)

def stalls(stop, out):
    while not stop.is_set():
        for i in range(3):
            try:
                t = urllib.request.urlopen(f'http://127.0.0.1:{18080+i}/metrics', timeout=1).read().decode()
                stopped = re.search(r'^kvorum_storage_write_stopped\S*\s+(\S+)', t, re.M)
                slowed = re.search(r'^kvorum_storage_delayed_write_rate_bytes_per_second\S*\s+(\S+)', t, re.M)
                out.append((float(stopped.group(1)) > 0 if stopped else False,
                            float(slowed.group(1)) > 0 if slowed else False))
            except Exception:
                pass
        time.sleep(1)

def load(tag, secs):
    if a.load == 'put':
        return wrk(PUT, a.rate, secs, 3, a.out, tag, conns=a.connections)
    return wrk(LUA, a.rate, secs, 3, a.out, tag, conns=a.connections,
               args=lambda i: [a.load, '100000', '1024', '2', '3', '90', '100', str(i)])

procs, ready = start(a.jar, a.out, extra_jvm=a.jvm, extra_flags=a.flag)
pids = [p.pid for p in procs]
try:
    for w in wrk(PUT, min(a.rate, 6000), a.warm, 3, a.out, 'warm'): w.wait()
    for r in range(a.rounds):
        for mode in a.modes.split(','):
            renice(pids, mode)
            time.sleep(5)
            tag = f'{mode}-{r}'
            before = answers(); s0 = sample(pids); t0 = time.time()
            stop = threading.Event(); seen = []
            sampler = threading.Thread(target=stalls, args=(stop, seen)); sampler.start()
            for w in load(tag, a.hold): w.wait()
            stop.set(); sampler.join()
            g = diff(s0, sample(pids)); secs = time.time() - t0
            codes = answers() - before
            served = achieved(a.out, tag)
            cpu, _ = totals(g)
            rocks = sum(v[0] for k, v in g.items() if k.startswith('rocksdb')) / TICK
            p = pct(a.out, tag, 3)
            n = max(1, len(seen))
            print(f'{mode:4s} round {r}: served {served:.0f}/s, {cpu*1e6/(served*secs):.0f} µs/req (RocksDB background '
                  f'{rocks*1e6/(served*secs):.0f}), p50 {p.get("50.000%")} p99 {p.get("99.000%")} p99.9 {p.get("99.900%")} ms, '
                  f'answers {dict(sorted(codes.items()))}, writes stopped {sum(s for s, _ in seen)/n:.0%} '
                  f'slowed {sum(d for _, d in seen)/n:.0%} of node-seconds', flush=True)
finally:
    stop(procs)
