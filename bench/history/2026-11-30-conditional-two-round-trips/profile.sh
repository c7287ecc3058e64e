#!/usr/bin/env bash
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
# JAR: the node jar; AP: async-profiler's libasyncProfiler.so
work=${OUT:-/tmp/prof42}; rm -rf $work; mkdir -p $work
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
gen() { local g=(); for i in 0 1 2; do /opt/wrk2/wrk -t 2 -c 64 -d ${2}s -R $(( $1 / 3 )) -L -s $lua http://127.0.0.1:$((24480+i)) -- create p$i$RANDOM 1024 > $work/wrk-$1-$i.txt 2>&1 & g+=($!); done; wait "${g[@]}"; }
gen 1000 40
# saturation, profile node-0 for 20 s in the middle
prof() { $java_home/bin/java $here/Attach.java ${pids[0]} ${AP:?set AP to libasyncProfiler.so} "$1" >> $work/jcmd.log 2>&1; }
( sleep 5; prof start,event=cpu,interval=1ms; sleep 20; prof stop,collapsed,file=$work/sat-cpu.txt ) &
gen 9000 30
sleep 3
( sleep 5; prof start,event=cpu,interval=1ms; sleep 20; prof stop,collapsed,file=$work/k1000-cpu.txt ) &
gen 1000 30
sleep 3
kill ${pids[@]}; wait ${pids[@]}
echo PROF-DONE
