#!/usr/bin/env bash
# The benchmark runner: builds the node and bench jars when missing (or with REBUILD=1), then runs
# io.kvorum.bench.BenchCommand, which starts a local cluster, preloads it, sweeps the rate of each
# phase with the open-loop generator, profiles one phase and writes
# bench/results/<timestamp>/report.md. `bench/run.sh --help` lists the options;
# `bench/run.sh calibrate --url URL` runs the generator against another server (bench/calibrate.sh).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

java_major() {
  "$1/bin/java" -XshowSettings:properties -version 2>&1 |
    awk -F'= ' '/java.specification.version/ {print $2}' | cut -d. -f1
}
if [ -z "${JAVA_HOME:-}" ] || [ "$(java_major "$JAVA_HOME")" -lt 21 ] 2>/dev/null; then
  for candidate in /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/*; do
    if [ -x "$candidate/bin/javac" ] && [ "$(java_major "$candidate")" -ge 21 ] 2>/dev/null; then
      export JAVA_HOME="$candidate"
      break
    fi
  done
fi
if [ "${REBUILD:-0}" = 1 ] || [ ! -f node/target/kvorum-node.jar ] ||
  [ ! -f bench/target/benchmarks.jar ]; then
  ./mvnw -B -q -ntp package -DskipTests -pl node,bench -am
fi
exec "${JAVA_HOME:+$JAVA_HOME/bin/}java" -Xmx2g -XX:+UseParallelGC --enable-native-access=ALL-UNNAMED \
  -cp bench/target/benchmarks.jar io.kvorum.bench.BenchCommand --command-line "bench/run.sh $*" "$@"
