#!/usr/bin/env bash
# Apache Cassandra 5.0 as the YCSB anchor of issue 45: a local ring of three Cassandra nodes, to be
# loaded like kvorum's three nodes (keyspace with RF 3, QUORUM reads and writes), each node with a
# 1 GiB heap like kvorum's, so the two can be compared on the same machine.
#
#   cassandra.sh start        fetch Cassandra (cassandra-all) and its dependencies from Maven Central
#                             into /tmp/kvorum-cassandra/lib when missing (through pom.xml beside this
#                             script), then start nodes 1..3 on 127.0.0.1..3 one after another and wait
#                             until the ring shows 3 nodes Up/Normal; prints the time it took
#   cassandra.sh cql STMT...  run CQL statements (Cql.java; CQL_CONSISTENCY, default QUORUM)
#   cassandra.sh nodetool ARGS...   nodetool against node 1 (JMX 127.0.0.1:7199), e.g. `nodetool status`
#   cassandra.sh pids         the node PIDs, one a line (for CPU and memory from /proc)
#   cassandra.sh stop         SIGTERM the nodes, SIGKILL after 60 s
#   cassandra.sh wipe         stop, then remove the nodes' data and logs (the lib dir stays)
#
# Node i listens on 127.0.0.i (storage 7000, CQL 9042), local JMX on 127.0.0.1:7199/7299/7399; its
# data, commit log, saved caches, hints, system.log, gc.log and stdout are in /tmp/kvorum-cassandra/nodei.
# The JVM flags are those of Cassandra 5.0's conf/jvm-server.options, conf/jvm17-server.options,
# conf/cassandra-env.sh and bin/cassandra; cassandra.yaml holds the values of the shipped 5.0
# cassandra.yaml that matter here. The one departure: auto_bootstrap: false (a fresh, empty ring has
# nothing to stream, and a bootstrap would wait 30 s of ring delay per node for nothing).
# Needs a JDK 11 or 17 (Cassandra 5.0 runs on no other): CASSANDRA_JAVA, else `java` on PATH, else
# /usr/lib/jvm/*17*.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../../.." && pwd)"
BASE=/tmp/kvorum-cassandra
LIB="$BASE/lib"
NODES=3
HEAP=1g

java17() {
    local j v
    for j in "${CASSANDRA_JAVA:-}" "$(command -v java || true)" /usr/lib/jvm/*17*/bin/java; do
        [[ -n "$j" && -x "$j" ]] || continue
        v="$("$j" -XshowSettings:properties -version 2>&1 | awk -F' = ' '/java.specification.version/ {print $2}')"
        if [[ "$v" == 11 || "$v" == 17 ]]; then echo "$j"; return 0; fi
    done
    echo "cassandra.sh: no JDK 11 or 17 found (set CASSANDRA_JAVA)" >&2
    return 1
}

fetch_lib() {
    if [[ -f "$LIB/.complete" ]]; then return 0; fi
    echo "fetching Cassandra and its dependencies into $LIB"
    rm -rf "$LIB"
    "$REPO/mvnw" -q -f "$HERE/pom.xml" dependency:copy-dependencies -DincludeScope=runtime \
        -DoutputDirectory="$LIB"
    touch "$LIB/.complete"
}

pid_of() { # prints the PID of node $1 if it is running
    local f="$BASE/node$1/pid"
    [[ -f "$f" ]] && kill -0 "$(cat "$f")" 2>/dev/null && cat "$f"
}

write_yaml() { # node index, node dir
    local i=$1 dir=$2
    cat > "$dir/cassandra.yaml" <<EOF
# Node $i of cassandra.sh (written at each start). Values as in Cassandra 5.0's shipped cassandra.yaml
# unless noted; what is not here is Cassandra's built-in default.
cluster_name: 'kvorum anchor'
num_tokens: 16
allocate_tokens_for_local_replication_factor: 3
# departure from the shipped yaml: a fresh, empty ring (see cassandra.sh)
auto_bootstrap: false
partitioner: org.apache.cassandra.dht.Murmur3Partitioner
endpoint_snitch: SimpleSnitch
seed_provider:
  - class_name: org.apache.cassandra.locator.SimpleSeedProvider
    parameters:
      - seeds: "127.0.0.1:7000"
listen_address: 127.0.0.$i
rpc_address: 127.0.0.$i
storage_port: 7000
start_native_transport: true
native_transport_port: 9042
authenticator:
  class_name: AllowAllAuthenticator
authorizer:
  class_name: AllowAllAuthorizer
role_manager:
  class_name: CassandraRoleManager
network_authorizer:
  class_name: AllowAllNetworkAuthorizer
data_file_directories:
  - $dir/data
commitlog_directory: $dir/commitlog
saved_caches_directory: $dir/saved_caches
hints_directory: $dir/hints
cdc_raw_directory: $dir/cdc_raw
commitlog_sync: periodic
commitlog_sync_period: 10000ms
commitlog_segment_size: 32MiB
commitlog_disk_access_mode: legacy
disk_failure_policy: stop
commit_failure_policy: stop
concurrent_reads: 32
concurrent_writes: 32
concurrent_counter_writes: 32
memtable:
  configurations:
    skiplist:
      class_name: SkipListMemtable
    trie:
      class_name: TrieMemtable
    default:
      inherits: skiplist
memtable_allocation_type: heap_buffers
key_cache_size:
row_cache_size: 0MiB
trickle_fsync: false
compaction_throughput: 64MiB/s
read_request_timeout: 5000ms
range_request_timeout: 10000ms
write_request_timeout: 2000ms
internode_compression: dc
storage_compatibility_mode: CASSANDRA_4
EOF
}

start_node() { # node index
    local i=$1 dir="$BASE/node$1" java
    java="$(java17)"
    mkdir -p "$dir"/{data,commitlog,saved_caches,hints,cdc_raw}
    write_yaml "$i" "$dir"
    [[ -f "$dir/hotspot_compiler" ]] || unzip -p "$LIB"/cassandra-all-*.jar META-INF/hotspot_compiler > "$dir/hotspot_compiler"
    local jamm
    jamm="$(ls "$LIB"/jamm-*.jar)"
    local opts=(
        # conf/jvm-server.options
        -ea -da:net.openhft... -XX:+UseThreadPriorities -XX:+HeapDumpOnOutOfMemoryError
        "-XX:HeapDumpPath=$dir" -Xss256k -XX:+AlwaysPreTouch -XX:+UseTLAB -XX:+ResizeTLAB
        -XX:+UseNUMA -XX:+PerfDisableSharedMem -Djava.net.preferIPv4Stack=true
        # conf/jvm17-server.options: G1 and the JPMS exports/opens Cassandra needs
        -XX:+UseG1GC -XX:+ParallelRefProcEnabled -XX:MaxTenuringThreshold=1 -XX:G1HeapRegionSize=16m
        -XX:G1RSetUpdatingPauseTimePercent=5 -XX:MaxGCPauseMillis=300
        -XX:InitiatingHeapOccupancyPercent=70
        -Djdk.attach.allowAttachSelf=true
        --add-exports java.base/jdk.internal.misc=ALL-UNNAMED
        --add-exports java.management.rmi/com.sun.jmx.remote.internal.rmi=ALL-UNNAMED
        --add-exports java.rmi/sun.rmi.registry=ALL-UNNAMED
        --add-exports java.rmi/sun.rmi.server=ALL-UNNAMED
        --add-exports java.sql/java.sql=ALL-UNNAMED
        --add-exports java.base/java.lang.ref=ALL-UNNAMED
        --add-exports jdk.unsupported/sun.misc=ALL-UNNAMED
        --add-exports jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED
        --add-exports jdk.attach/sun.tools.attach=ALL-UNNAMED
        --add-opens java.base/java.lang.module=ALL-UNNAMED
        --add-opens java.base/jdk.internal.loader=ALL-UNNAMED
        --add-opens java.base/jdk.internal.ref=ALL-UNNAMED
        --add-opens java.base/jdk.internal.reflect=ALL-UNNAMED
        --add-opens java.base/jdk.internal.math=ALL-UNNAMED
        --add-opens java.base/jdk.internal.module=ALL-UNNAMED
        --add-opens java.base/jdk.internal.util.jar=ALL-UNNAMED
        --add-opens jdk.management/com.sun.management.internal=ALL-UNNAMED
        --add-opens java.base/sun.nio.ch=ALL-UNNAMED
        --add-opens java.base/java.io=ALL-UNNAMED
        --add-opens java.base/java.lang.reflect=ALL-UNNAMED
        --add-opens jdk.compiler/com.sun.tools.javac=ALL-UNNAMED
        --add-opens java.base/java.lang=ALL-UNNAMED
        --add-opens java.base/java.util=ALL-UNNAMED
        -Dio.netty.tryReflectionSetAccessible=true
        -Dio.netty.allocator.useCacheForAllThreads=true -Dio.netty.allocator.maxOrder=11
        # conf/cassandra-env.sh: heap (1 GiB, like kvorum's nodes), GC log, JIT hints, jamm, local JMX
        "-Xms$HEAP" "-Xmx$HEAP"
        "-Xlog:gc=info,heap*=trace,age*=debug,safepoint=info,promotion*=trace:file=$dir/gc.log:time,uptime,pid,tid,level:filecount=10,filesize=10485760"
        "-XX:CompileCommandFile=$dir/hotspot_compiler"
        "-javaagent:$jamm"
        "-XX:OnOutOfMemoryError=kill -9 %p"
        "-Dcassandra.jmx.local.port=$((7099 + 100 * i))" -Dcom.sun.management.jmxremote.authenticate=false
        # bin/cassandra
        "-Dlogback.configurationFile=$HERE/logback.xml" "-Dcassandra.logdir=$dir"
        "-Dcassandra.storagedir=$dir" "-Dcassandra.config=file://$dir/cassandra.yaml"
        -Dcassandra-foreground=yes
    )
    MALLOC_ARENA_MAX=4 nohup "$java" "${opts[@]}" -cp "$LIB/*" org.apache.cassandra.service.CassandraDaemon \
        > "$dir/stdout.log" 2>&1 < /dev/null &
    echo $! > "$dir/pid"
}

cql_port_open() { # node index
    (exec 3<>"/dev/tcp/127.0.0.$1/9042") 2>/dev/null
}

# JVM flags of the tools (nodetool, Cql.java): conf/jvm17-clients.options, logs to $BASE/tools,
# nodetool's history file there too (it goes to ~/.cassandra otherwise)
TOOL_OPTS=(
    -Djdk.attach.allowAttachSelf=true
    --add-exports java.base/jdk.internal.misc=ALL-UNNAMED
    --add-exports java.base/jdk.internal.ref=ALL-UNNAMED
    --add-exports java.base/sun.nio.ch=ALL-UNNAMED
    --add-exports java.management.rmi/com.sun.jmx.remote.internal.rmi=ALL-UNNAMED
    --add-exports java.rmi/sun.rmi.registry=ALL-UNNAMED
    --add-exports java.rmi/sun.rmi.server=ALL-UNNAMED
    --add-exports java.sql/java.sql=ALL-UNNAMED
    --add-exports jdk.unsupported/sun.misc=ALL-UNNAMED
    --add-opens java.base/java.lang.module=ALL-UNNAMED
    --add-opens java.base/jdk.internal.loader=ALL-UNNAMED
    --add-opens java.base/jdk.internal.ref=ALL-UNNAMED
    --add-opens java.base/jdk.internal.reflect=ALL-UNNAMED
    --add-opens java.base/jdk.internal.math=ALL-UNNAMED
    --add-opens java.base/jdk.internal.module=ALL-UNNAMED
    --add-opens java.base/jdk.internal.util.jar=ALL-UNNAMED
    --add-opens java.base/sun.nio.ch=ALL-UNNAMED
    --add-opens java.base/java.io=ALL-UNNAMED
    --add-opens java.base/java.util=ALL-UNNAMED
    --add-opens java.base/java.lang=ALL-UNNAMED
    --add-opens java.base/java.lang.reflect=ALL-UNNAMED
    --add-opens java.base/java.net=ALL-UNNAMED
    "-Dlogback.configurationFile=$HERE/logback.xml" "-Dcassandra.logdir=$BASE/tools"
    "-Duser.home=$BASE/tools"
)

nodetool() {
    local java
    java="$(java17)"
    mkdir -p "$BASE/tools"
    "$java" -Xmx128m "${TOOL_OPTS[@]}" -cp "$LIB/*" org.apache.cassandra.tools.NodeTool -h 127.0.0.1 -p 7199 "$@"
}

wait_for() { # description, timeout in s, command...
    local what=$1 timeout=$2 t=0
    shift 2
    until "$@"; do
        if (( t >= timeout )); then echo "cassandra.sh: timed out waiting for $what" >&2; return 1; fi
        sleep 1
        t=$((t + 1))
    done
}

ring_up() {
    [[ "$(nodetool status 2>/dev/null | grep -c '^UN ')" == "$NODES" ]]
}

alive_or_fail() { # node index: fails (printing the log tail) when node $1 died
    if ! pid_of "$1" > /dev/null; then
        echo "cassandra.sh: node $1 died; tail of $BASE/node$1/system.log:" >&2
        tail -n 30 "$BASE/node$1/system.log" "$BASE/node$1/stdout.log" >&2 || true
        exit 1
    fi
}

node_ready() { alive_or_fail "$1"; cql_port_open "$1"; }

cmd_start() {
    fetch_lib
    local i running=0
    for ((i = 1; i <= NODES; i++)); do
        if pid_of "$i" > /dev/null; then running=$((running + 1)); fi
    done
    if (( running > 0 )); then echo "cassandra.sh: $running node(s) already running (stop first)" >&2; exit 1; fi
    local t0=$SECONDS
    for ((i = 1; i <= NODES; i++)); do
        start_node "$i"
        # a node opens its CQL port only once it has joined the ring (Up/Normal): start the next then
        wait_for "node $i (127.0.0.$i:9042)" 300 node_ready "$i"
        echo "node $i up (pid $(cat "$BASE/node$i/pid")) after $((SECONDS - t0)) s"
    done
    wait_for "3 nodes UN in nodetool status" 120 ring_up
    nodetool status
    echo "ring of $NODES nodes ready in $((SECONDS - t0)) s"
}

cmd_stop() {
    local i pid pids=()
    for ((i = 1; i <= NODES; i++)); do
        if pid="$(pid_of "$i")"; then kill -TERM "$pid"; pids+=("$pid"); fi
    done
    local t=0
    for pid in "${pids[@]}"; do
        while kill -0 "$pid" 2>/dev/null && (( t < 60 )); do sleep 1; t=$((t + 1)); done
        if kill -0 "$pid" 2>/dev/null; then echo "SIGKILL $pid"; kill -KILL "$pid" 2>/dev/null || true; fi
    done
    rm -f "$BASE"/node*/pid
    echo "stopped ${#pids[@]} node(s)"
}

case "${1:-}" in
    start) cmd_start ;;
    stop) cmd_stop ;;
    wipe) cmd_stop; rm -rf "$BASE"/node* "$BASE/tools"; echo "wiped $BASE (kept $LIB)" ;;
    pids) for ((i = 1; i <= NODES; i++)); do pid_of "$i" || true; done ;;
    cql)
        shift
        mkdir -p "$BASE/tools"
        "$(java17)" "${TOOL_OPTS[@]}" -cp "$LIB/*" "$HERE/Cql.java" "$@" ;;
    nodetool) shift; nodetool "$@" ;;
    *) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
esac
