#!/usr/bin/env python3
"""A training run for the JDK ahead-of-time cache (JEP 483/515): each node writes PREFIX-<i>.aot
at exit; use it with --jvm=-XX:AOTCache=PREFIX-{i}.aot."""
import os, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *
ap = parser(__doc__)
ap.add_argument('--aot', required=True)
a = ap.parse_args()
t=time.time()
with cluster(a, extra_jvm=[f'-XX:AOTCacheOutput={a.aot}-{{i}}.aot']):
    for w in wrk(os.path.join(HERE, 'put.lua'), 3000, 30, 3, a.out, 'w1'): w.wait()
    for w in wrk(os.path.join(HERE, 'get.lua'), 3000, 15, 3, a.out, 'w2'): w.wait()
    for w in wrk(os.path.join(HERE, 'put.lua'), 1000, 15, 3, a.out, 'w3'): w.wait()
print('trained in', time.time()-t)
