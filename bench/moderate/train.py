#!/usr/bin/env python3
"""A training run for the JDK ahead-of-time cache (JEP 483/515): each node writes PREFIX-<i>.aot
at exit; use it with --jvm=-XX:AOTCache=PREFIX-{i}.aot."""
import os, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *
ap = argparse.ArgumentParser()
ap.add_argument('--jar'); ap.add_argument('--aot')
ap.add_argument('--out', default='/tmp/kvorum-moderate')
a = ap.parse_args()
t=time.time()
procs, ready = start(a.jar, a.out, extra_jvm=[f'-XX:AOTCacheOutput={a.aot}-{{i}}.aot'])
pids = [p.pid for p in procs]
for w in wrk(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'put.lua'), 3000, 30, 3, a.out, 'w1'): w.wait()
for w in wrk(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'get.lua'), 3000, 15, 3, a.out, 'w2'): w.wait()
for w in wrk(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'put.lua'), 1000, 15, 3, a.out, 'w3'): w.wait()
for p in procs: p.terminate()
for p in procs: p.wait()
print('trained in', time.time()-t)
