#!/usr/bin/env python3
"""async-profiler on every node at a moderate rate in steady state (collapsed stacks per node),
optionally strace -c of node-0 first. ASYNC_PROFILER_LIB: libasyncProfiler.so."""
import os, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *
ap = parser(__doc__)
ap.add_argument('--event', default='cpu')
ap.add_argument('--opts', default='interval=1ms')
ap.add_argument('--warm', type=int, default=100)
ap.add_argument('--secs', type=int, default=60)
ap.add_argument('--strace', type=int, default=0)
a = ap.parse_args()
LIB = os.environ.get('ASYNC_PROFILER_LIB', '/opt/ap/linux-x64/libasyncProfiler.so')
with cluster(a, extra_jvm=['-XX:+EnableDynamicAgentLoading', '-XX:+UnlockDiagnosticVMOptions', '-XX:+DebugNonSafepoints']) as pids:
    ws = load(a, a.rate, a.warm + a.secs + 5 + a.strace, 'load')
    time.sleep(a.warm)
    if a.strace:
        st = subprocess.Popen(['strace', '-c', '-f', '-p', str(pids[0]), '-o', f'{a.out}/strace-node0.txt'])
        time.sleep(a.strace); st.terminate(); st.wait()
    for pid in pids:
        subprocess.run([JAVA, '-Djdk.attach.allowAttachSelf', HERE + '/Attach.java', str(pid), LIB, f'start,event={a.event},{a.opts}'])
    s0 = sample(pids); t0 = time.time()
    time.sleep(a.secs)
    s1 = sample(pids); t1 = time.time()
    for i, pid in enumerate(pids):
        subprocess.run([JAVA, '-Djdk.attach.allowAttachSelf', HERE + '/Attach.java', str(pid), LIB, f'stop,collapsed,file={a.out}/node{i}-{a.event}.collapsed'])
    report('profiled window', diff(s0, s1), t1 - t0, a.rate * (t1 - t0))
    for w in ws: w.wait()
    print(pct(a.out, 'load', a.nodes))
