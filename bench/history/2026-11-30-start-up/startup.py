#!/usr/bin/env python3
"""Times `bin/kvorum local` to "is ready": prints each line with ms since launch, and CPU of every
process in the tree at ready (from /proc). Usage: startup.py [--quiet] [extra args for local]"""
import os, subprocess, sys, time, shutil, signal
quiet = '--quiet' in sys.argv
args = [a for a in sys.argv[1:] if a != '--quiet']
root = '/work/main' if not os.environ.get('ROOT') else os.environ['ROOT']
shutil.rmtree('/tmp/lr', ignore_errors=True)
tick = os.sysconf('SC_CLK_TCK')
def tree(pid):
    out = [pid]
    for p in os.listdir('/proc'):
        if p.isdigit():
            try:
                st = open(f'/proc/{p}/stat').read()
                ppid = int(st.rsplit(')', 1)[1].split()[1])
                if ppid == pid:
                    out += tree(int(p))
            except Exception:
                pass
    return out
def cpu(pid):
    try:
        f = open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()
        return (int(f[11]) + int(f[12])) / tick
    except Exception:
        return 0.0
t0 = time.time()
p = subprocess.Popen([f'{root}/bin/kvorum', 'local', '--data-dir', '/tmp/lr', '--http-port', '28080', '--grpc-port', '29090'] + args,
                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
cpus = {}
import threading
seen = {}
def watch():
    while p.poll() is None and len(seen) < 5:
        for q in tree(p.pid):
            if q not in seen:
                seen[q] = (time.time() - t0) * 1000
        time.sleep(0.005)
threading.Thread(target=watch, daemon=True).start()
for line in p.stdout:
    el = (time.time() - t0) * 1000
    pids = tree(p.pid)
    for q in pids:
        cpus[q] = cpu(q)
    if not quiet:
        print(f'{el:7.0f} {line.rstrip()[:170]}')
    if 'is ready' in line:
        break
el = time.time() - t0
time.sleep(0.05)
for q in tree(p.pid):
    cpus[q] = cpu(q)
launcher = cpus.get(p.pid, 0)
print('spawned at ms:', sorted(int(v) for v in seen.values()))
print(f'READY {el:.2f} s; CPU nodes {sum(cpus.values()) - launcher:.2f} s, launcher {launcher:.2f} s')
os.killpg(p.pid, signal.SIGTERM)
p.wait(timeout=40)
