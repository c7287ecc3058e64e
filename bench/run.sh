#!/usr/bin/env bash
# The benchmark runner: builds the node and bench jars when missing (or with REBUILD=1), then runs
# io.kvorum.bench.BenchCommand, which starts a local cluster, preloads it, sweeps the rate of each
# phase with the open-loop generator (or wrk2), profiles one phase and writes
# bench/results/<timestamp>/report.md; with --calibrate, measures nginx first (installed with apt
# when missing). `bench/run.sh --help` lists the options; `bench/run.sh calibrate --url URL` runs
# the generator against another server (bench/tools/calibrate.sh).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

case " $* " in
  *" --calibrate"*)
    command -v nginx > /dev/null || [ -x /usr/sbin/nginx ] ||
      { apt-get update -qq && apt-get install -y -qq nginx > /dev/null; } ;;
esac
# A JDK, not a JRE: the profiler attaches to the nodes through jdk.attach.
java_home=$(bin/find-java --jdk)
if [ "${REBUILD:-0}" = 1 ] || [ ! -f node/target/kvorum-node.jar ] ||
  [ ! -f bench/target/benchmarks.jar ]; then
  ./mvnw -B -q -ntp package -DskipTests -pl node,bench -am
fi
exec "$java_home/bin/java" -Xmx2g -XX:+UseParallelGC --enable-native-access=ALL-UNNAMED \
  -cp bench/target/benchmarks.jar io.kvorum.bench.BenchCommand --command-line "bench/run.sh $*" "$@"
