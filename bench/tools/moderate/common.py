#!/usr/bin/env python3
"""The shared part of bench/tools/moderate's scripts: start 3 nodes (1 GiB heaps, G1) from a jar, load them
with wrk2 at a constant rate spread over the nodes, and read every node thread's CPU time and
context switches from /proc, grouped by thread pool (kvorum-io-2 -> kvorum-io, C2 CompilerThre -> C2).
Environment: KVORUM_JAVA (a JDK's java; default: bin/find-java --jdk), WRK2 (default: wrk on the PATH)."""
import os, re, subprocess, sys, time, json, urllib.request, shutil, argparse, collections, contextlib

TICK = os.sysconf('SC_CLK_TCK')
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, '..', '..', '..'))  # the repository
JAVA = os.environ.get('KVORUM_JAVA') or os.path.join(
    subprocess.run([os.path.join(ROOT, 'bin', 'find-java'), '--jdk'],
                   check=True, capture_output=True, text=True).stdout.strip(), 'bin', 'java')
WRK = os.environ.get('WRK2') or shutil.which('wrk') or 'wrk'

def group(comm):
    c = re.sub(r'[-#]?\d+$', '', comm.strip())
    c = re.sub(r'\d+$', '', c)
    if c.startswith('C2 CompilerThre'): return 'C2'
    if c.startswith('C1 CompilerThre'): return 'C1'
    if c.startswith('GC Thread') or c.startswith('G1 '): return 'GC'
    return c

def threads(pid):
    out = {}
    for tid in os.listdir(f'/proc/{pid}/task'):
        try:
            stat = open(f'/proc/{pid}/task/{tid}/stat').read()
            status = open(f'/proc/{pid}/task/{tid}/status').read()
        except OSError:
            continue
        comm = stat[stat.index('(')+1:stat.rindex(')')]
        f = stat[stat.rindex(')')+2:].split()
        cpu = int(f[11]) + int(f[12])
        vol = int(re.search(r'voluntary_ctxt_switches:\s+(\d+)', status).group(1))
        nonvol = int(re.search(r'nonvoluntary_ctxt_switches:\s+(\d+)', status).group(1))
        try:
            mig = int(re.search(r'se.nr_migrations\s+:\s+(\d+)', open(f'/proc/{pid}/task/{tid}/sched').read()).group(1))
        except (OSError, AttributeError):
            mig = 0
        out[int(tid)] = (comm, cpu, vol + nonvol, mig)
    return out

def sample(pids):
    return {pid: threads(pid) for pid in pids}

def diff(a, b):
    """per group: cpu ticks, switches, summed over nodes"""
    g = collections.defaultdict(lambda: [0, 0, 0])
    for pid in b:
        for tid, (comm, cpu, sw, mig) in b[pid].items():
            c0, s0, m0 = (a[pid][tid][1], a[pid][tid][2], a[pid][tid][3]) if tid in a.get(pid, {}) and a[pid][tid][0] == comm else (0, 0, 0)
            g[group(comm)][0] += cpu - c0
            g[group(comm)][1] += sw - s0
            g[group(comm)][2] += mig - m0
    return g

def start(jar, out, nodes=3, extra_jvm=(), extra_flags=(), apart=False):
    """apart: each node a cluster of its own, not a peer of the others."""
    shutil.rmtree(out, ignore_errors=True); os.makedirs(out)
    procs = []
    for i in range(nodes):
        peers = ','.join(f'node-{j}=127.0.0.1:{19090+j}' for j in ([i] if apart else range(nodes)))
        cmd = [JAVA, '-Xms1g', '-Xmx1g', '-XX:+UseG1GC', '--enable-native-access=ALL-UNNAMED', *[j.replace('{i}', str(i)) for j in extra_jvm],
               '-jar', jar, '--node-id', f'node-{i}', '--http-host', '127.0.0.1', '--http-port', str(18080+i),
               '--grpc-port', str(19090+i), '--data-dir', f'{out}/data/node-{i}', '--peers', peers, *extra_flags]
        env = {k: v for k, v in os.environ.items() if not k.startswith('KVORUM_')}
        procs.append(subprocess.Popen(cmd, stdout=open(f'{out}/node-{i}.log', 'w'), stderr=subprocess.STDOUT, env=env))
    t0 = time.time()
    for i in range(nodes):
        while True:
            try:
                if urllib.request.urlopen(f'http://127.0.0.1:{18080+i}/v0/status', timeout=1).status == 200: break
            except Exception: pass
            if time.time() - t0 > 90: raise SystemExit('not ready')
            time.sleep(0.2)
    return procs, time.time() - t0

def wrk(script, rate, secs, nodes, out, tag, conns=8, args=None):
    """One wrk2 per node at an equal share of rate; args(i): the script's arguments for node i."""
    ps = []
    for i in range(nodes):
        extra = ['--', *args(i)] if args else []
        ps.append(subprocess.Popen([WRK, '-t1', f'-c{conns}', f'-d{secs}s', f'-R{rate/nodes:.0f}', '-L', '-s', script,
                                    f'http://127.0.0.1:{18080+i}', *extra], stdout=open(f'{out}/wrk-{tag}-{i}.txt', 'w'), stderr=subprocess.STDOUT))
    return ps

def load(a, rate, secs, tag):
    """wrk2 with a.script at rate over a's nodes, each request with a.quorum (parser's options)."""
    return wrk(a.script, rate, secs, a.nodes, a.out, tag, args=lambda i: [a.quorum])

def achieved(out, tag, nodes=3):
    """The requests a second wrk2 served, summed over the nodes' runs of tag."""
    total = 0.0
    for i in range(nodes):
        m = re.search(r'Requests/sec:\s+([\d.]+)', open(f'{out}/wrk-{tag}-{i}.txt').read())
        total += float(m.group(1)) if m else 0
    return total

def pct(out, tag, nodes):
    res = {}
    for i in range(nodes):
        t = open(f'{out}/wrk-{tag}-{i}.txt').read()
        for p in ('50.000%', '99.000%', '99.900%'):
            m = re.search(re.escape(p) + r'\s+([\d.]+)(ms|s|us)', t)
            if m:
                v = float(m.group(1)) * {'ms': 1, 's': 1000, 'us': 0.001}[m.group(2)]
                res[p] = max(res.get(p, 0), v)
        m = re.search(r'Non-2xx or 3xx responses: (\d+)', t)
        res['errors'] = res.get('errors', 0) + (int(m.group(1)) if m else 0)
    return res

def answers(nodes=3):
    """The nodes' HTTP answers so far by status code, summed over the nodes (from each node's
    kvorum_http_request_duration_seconds_count on /metrics)."""
    out = collections.Counter()
    for i in range(nodes):
        text = urllib.request.urlopen(f'http://127.0.0.1:{18080+i}/metrics', timeout=5).read().decode()
        for m in re.finditer(r'^kvorum_http_request_duration_seconds_count\{([^}]*)\}\s+(\S+)', text, re.M):
            code = re.search(r'code="(\d+)"', m.group(1))
            if code:
                out[code.group(1)] += int(float(m.group(2)))
    return out

def totals(g):
    """A diff's CPU seconds and context switches, all pools together."""
    return sum(v[0] for v in g.values()) / TICK, sum(v[1] for v in g.values())

def per_request(g, reqs):
    """A diff's CPU µs, the JIT's (C1 and C2) CPU µs and context switches, per request."""
    cpu, sw = totals(g)
    jit = (g['C2'][0] + g['C1'][0]) / TICK
    return cpu * 1e6 / reqs, jit * 1e6 / reqs, sw / reqs

def windows(pids, window, until):
    """Samples pids every window seconds, starting windows while less than until seconds have
    passed; yields each window's start and end (seconds from the first sample) and its samples."""
    t0 = time.time(); prev = sample(pids); prev_t = t0
    while time.time() - t0 < until:
        time.sleep(window)
        cur = sample(pids); now = time.time()
        yield prev_t - t0, now - t0, prev, cur
        prev, prev_t = cur, now

def report(label, g, secs, reqs):
    tot, sw = totals(g)
    mig = sum(v[2] for v in g.values())
    line = f'{label}: {secs:.0f}s cores={tot/secs:.3f}'
    if reqs:
        line += f' us/req={tot*1e6/reqs:.0f} sw/req={sw/reqs:.2f} migrations/req={mig/reqs:.2f}'
    else:
        line += f' switches/s={sw/secs:.0f} migrations/s={mig/secs:.0f}'
    print(line)
    for k, v in sorted(g.items(), key=lambda kv: -kv[1][0]):
        if v[0] == 0 and v[1] == 0: continue
        cpu = v[0] / TICK
        print(f'   {k:32s} {cpu*1e6/reqs if reqs else cpu/secs*100:9.1f} {"us/req" if reqs else "%core"}  sw/req={v[1]/reqs if reqs else v[1]/secs:.2f}')
    sys.stdout.flush()

def options(doc, out='/tmp/kvorum-moderate'):
    """The options every script shares: the jar, the output directory, and extra JVM options and
    node flags ({i} in a JVM option becomes the node's index)."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--jar', default='node/target/kvorum-node.jar')
    ap.add_argument('--out', default=out)
    ap.add_argument('--jvm', action='append', default=[])
    ap.add_argument('--flag', action='append', default=[])
    return ap

def parser(doc):
    """options(), and the rate, the wrk2 script and the cluster's shape (steady.py, profile.py)."""
    ap = options(doc)
    ap.add_argument('--rate', type=int, default=1000)
    ap.add_argument('--script', default=os.path.join(HERE, 'put.lua'))
    ap.add_argument('--nodes', type=int, default=3)
    ap.add_argument('--quorum', default='ack=2&from=3', help="put.lua's and get.lua's ack and from")
    ap.add_argument('--apart', action='store_true', help='each node a one-node cluster of its own')
    return ap

@contextlib.contextmanager
def cluster(a, extra_jvm=()):
    """a.nodes nodes (three unless said) of a.jar, with a.jvm and a.flag, stopped on the way out;
    yields their pids."""
    procs, ready = start(a.jar, a.out, nodes=a.nodes, extra_jvm=[*extra_jvm, *a.jvm], extra_flags=a.flag, apart=a.apart)
    print(f'ready after {ready:.1f}s')
    try:
        yield [p.pid for p in procs]
    finally:
        stop(procs)

def stop(procs):
    for p in procs: p.terminate()
    for p in procs: p.wait()

def idle(pids, secs, label):
    s0 = sample(pids); t0 = time.time(); time.sleep(secs); s1 = sample(pids)
    report(label, diff(s0, s1), time.time() - t0, 0)
