#!/usr/bin/env bash
# one node alone (a cluster of one), timed to "ready"; extra JVM flags in $JVM
rm -rf /tmp/n1; J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java; jar=${JAR:-/work/main/node/target/kvorum-node.jar}
s=$(date +%s%N)
$J --enable-native-access=ALL-UNNAMED -XX:AOTCache=${CACHE:-${jar%.jar}.aot} $JVM -jar $jar --node-id n1 --http-host 127.0.0.1 --http-port 28090 --grpc-port 29190 --data-dir /tmp/n1 --peers n1=127.0.0.1:29190 --io-threads 1 > /tmp/n1.log 2>&1 &
pid=$!
while ! grep -q " ready:" /tmp/n1.log; do kill -0 $pid 2>/dev/null || { echo died; head -3 /tmp/n1.log; exit 1; }; sleep 0.01; done
e=$(date +%s%N)
cpu=$(awk '{print ($14+$15)/100}' /proc/$pid/stat)
echo "ready $(( (e-s)/1000000 )) ms, cpu $cpu s"
kill $pid; wait $pid 2>/dev/null
