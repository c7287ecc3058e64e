#!/usr/bin/env bash
# Idle CPU of three nodes after an overloaded conditional run (issue 42 item 6).
set -uo pipefail
cd "$(dirname "$0")/../../.."
work=${OUT:-/tmp/idle42}; rm -rf $work; mkdir -p $work
jar=${JAR:-node/target/kvorum-node.jar}
java_home=$(bin/find-java)
peers="node-0=127.0.0.1:24580,node-1=127.0.0.1:24581,node-2=127.0.0.1:24582"
pids=()
for i in 0 1 2; do
  $java_home/bin/java -Xms1g -Xmx1g -XX:+UseG1GC --enable-native-access=ALL-UNNAMED -XX:+EnableDynamicAgentLoading -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints -jar $jar --node-id node-$i --http-host 127.0.0.1 --http-port $((24480+i)) --grpc-port $((24580+i)) --data-dir $work/node-$i --peers $peers > $work/node-$i.log 2>&1 &
  pids+=($!)
done
for i in 0 1 2; do until curl -sf http://127.0.0.1:$((24480+i))/health/ready >/dev/null; do sleep 0.5; done; done
lua=bench/tools/cas-etcd/requests.lua
gen() { local g=(); for i in 0 1 2; do /opt/wrk2/wrk -t 2 -c 64 -d ${2}s -R $(( $1 / 3 )) -L --timeout 10s -s $lua http://127.0.0.1:$((24480+i)) -- ${3:-create} p$i$RANDOM 1024 > $work/wrk-$1-$i.txt 2>&1 & g+=($!); done; wait "${g[@]}"; }
ticks() { local s=0; for p in "${pids[@]}"; do s=$((s + $(awk '{print $14+$15}' /proc/$p/stat))); done; echo $s; }
idle() { local label=$1 n=$2; for w in $(seq 1 $n); do a=$(ticks); sleep 10; b=$(ticks); echo "$label window $w: $(awk -v d=$((b-a)) 'BEGIN{printf "%.1f", d/30}')% of a core per node (avg over 3 nodes; 10 s)"; done; }
idle "fresh, idle" 2
gen 1000 30
idle "after 30 s at 1000/s" 3
gen 9000 60
echo "overload delivered: $(awk '/ requests in /{s+=$1} END{print s/60}' $work/wrk-9000-*.txt)/s"
idle "after 60 s offered 9000/s" 9
kill ${pids[@]}; wait ${pids[@]} 2>/dev/null
echo IDLE-DONE
