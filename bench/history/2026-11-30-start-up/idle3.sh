#!/usr/bin/env bash
# bin/kvorum local: CPU of the three nodes in the SECS s after "is ready", by thread name
rm -rf /tmp/lr; cd ${ROOT:-/work/main}
bin/kvorum local --data-dir /tmp/lr --http-port 28080 --grpc-port 29090 > /tmp/l3.log 2>&1 &
lp=$!
while ! grep -q "is ready" /tmp/l3.log; do sleep 0.02; done
sleep ${SKIP:-0}
pids=$(pgrep -P $lp)
snap() { for p in $pids; do for t in /proc/$p/task/*; do echo "$(cat $t/comm | tr ' ' _) $(awk '{print $14+$15}' $t/stat)"; done; done; }
snap > /tmp/idle.a; sleep ${SECS:-10}; snap > /tmp/idle.b
kill $lp; wait $lp 2>/dev/null
python3 - <<'P'
import collections,os
a=collections.Counter(); b=collections.Counter()
for l in open('/tmp/idle.a'): n,v=l.split(); a[n]+=int(v)
for l in open('/tmp/idle.b'): n,v=l.split(); b[n]+=int(v)
d={k:b[k]-a.get(k,0) for k in b}
tot=sum(d.values()); secs=int(os.environ.get('SECS','10'))
print(f"3 nodes, {secs} s after ready: {tot*10} ms CPU = {tot/secs/3:.1f}% of a core per node", {k:v*10 for k,v in sorted(d.items(), key=lambda x:-x[1]) if v})
P
