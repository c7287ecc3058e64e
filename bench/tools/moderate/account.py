#!/usr/bin/env python3
"""The account of a profile: async-profiler collapsed stacks of all nodes (profile.py) turned into CPU
microseconds per request, by kind (Java, RocksDB, syscalls, JIT...) and by what the stacks pass
through, and the Java time by library. Usage: account.py REQUESTS FILE...  (REQUESTS: requests served while profiling)."""
import collections, sys
if len(sys.argv) < 3 or sys.argv[1] in ('-h', '--help'):
    print(__doc__)
    sys.exit(0 if sys.argv[1:2] in (['-h'], ['--help']) else 2)
reqs=float(sys.argv[1]); files=sys.argv[2:]
def kind(fr):
    s=';'.join(fr)
    if 'entry_SYSCALL_64_after_hwframe_[k]' in fr:
        i=fr.index('entry_SYSCALL_64_after_hwframe_[k]'); call=fr[i-1] if i>0 else '?'
        if 'futex' in call or 'pthread_cond' in call or 'lll_lock' in call or 'futex' in s:
            return 'syscall futex: ' + ('wake' if ('wake' in s or 'signal' in call or 'lll_lock_wake' in call) else 'wait')
        if call.endswith('write') or call=='__GI_write':
            return 'syscall write: ' + ('eventfd (wake a loop)' if 'eventfd' in s else 'file (WAL)')
        return 'syscall '+call.replace('__GI_','').replace('__GI___','').replace('__','')
    if any(f.endswith('_[k]') for f in fr):
        if 'page_fault' in s: return 'kernel: page faults'
        return 'kernel: interrupts/other'
    leaf=fr[-1]
    if leaf.startswith('rocksdb::') or 'librocksdbjni' in leaf or 'rocksdb' in leaf: return 'rocksdb native'
    if 'Unsafe_Park' in s or 'Parker::park' in s: return 'jvm: park'
    if 'Unsafe_Unpark' in s or 'Parker::unpark' in s: return 'jvm: unpark'
    if 'fill_in_stack_trace' in s: return 'jvm: exception stack traces'
    if any(x in s for x in ('CompileBroker','C2Compiler','Compilation::','C1_','Compile::')): return 'jvm: JIT compile'
    if 'G1' in leaf or 'GC' in leaf: return 'jvm: GC'
    if '/' not in leaf and not leaf.startswith('L'):
        return 'native/jvm other'
    return 'java'
# The Java samples by the library of their own frame (the leaf): whose code the Java time is.
LIBRARIES=[('io/kvorum','kvorum'),('io/grpc/netty','gRPC (Netty transport)'),('io/grpc','gRPC'),
 ('io/netty/handler/codec/http2','Netty HTTP/2'),('io/netty/handler/codec/http','Netty HTTP/1.1'),
 ('io/netty/buffer','Netty buffers'),('io/netty','Netty (channels, loops, the rest)'),
 ('com/google/protobuf','protobuf'),('io/micrometer','Micrometer'),('io/github/resilience4j','Resilience4j'),
 ('org/rocksdb','RocksDB (Java side)'),('java/util/concurrent','the JDK (java.util.concurrent)'),
 ('java/','the JDK'),('jdk/','the JDK'),('sun/','the JDK'),('com/google/common','Guava'),
 ('com/dynatrace/hash4j','hash4j'),('io/perfmark','PerfMark')]
def library(leaf):
    l=leaf.replace('.','/').lstrip('L')
    return next((n for p,n in LIBRARIES if l.startswith(p)),'other')
cnt=collections.Counter(); lib=collections.Counter(); tot=0
for f in files:
    for line in open(f):
        stack,c=line.rsplit(' ',1); c=int(c); tot+=c; fr=stack.split(';'); k=kind(fr)
        cnt[k]+=c
        if k=='java': lib[library(fr[-1])]+=c
print(f'total {tot/1000:.1f} s CPU = {tot*1000/reqs:.0f} us/req')
for k,c in cnt.most_common(): print(f'  {c*1000/reqs:7.1f} us/req {c*100/tot:5.1f}%  {k}')

marks=['EpollIoHandler.run','epollWait','epoll_pwait','processReady','runAllTasks','runScheduledAndExecutorTasks',
 'AbstractEpollStreamChannel$EpollStreamUnsafe.epollInReady','doReadBytes','ByteToMessageDecoder.channelRead','HttpObjectDecoder','HttpServerCodec','Http2ConnectionHandler','DefaultHttp2ConnectionDecoder',
 'HttpRequestHandler','Endpoints','DataEndpoints','Coordinator','WriteCoordinator','QuorumCall',
 'ReplicaStream','ServedExchange','ReplicaEndpoint','ExchangeBatcher','ProtoMapping','GrpcPeerTransport',
 'io/grpc/internal/ServerImpl','io/grpc/internal/ClientCallImpl','MessageFramer','MessageDeframer','SerializingExecutor',
 'LocalReplicaService','TreeKeepingStorageEngine','HashTrees','MeteredStorageEngine','RocksDbStorageEngine.put','RocksDB.write0','WriteImpl','WriteToWAL','MemTable::Add','InsertInto',
 'flush0','doWriteMultiple','writev','writeBytes','write_[k]','sendto','recvfrom','__send','__recv','read_[k]',
 'Exchange','HttpErrorMapper','micrometer','Timer','fill_in_stack_trace','ResourceLeakDetector','ScheduledFutureTask','schedule','cancel','HybridLogicalClock','Clock','clock_gettime','itable stub','vtable stub','Unsafe_Park','Unsafe_Unpark',
 'HttpResponseEncoder','HttpObjectEncoder','DefaultHttp2ConnectionEncoder','Http2FrameWriter','DefaultHttp2FrameWriter','NettyServerHandler','NettyClientHandler','WriteBufferingAndExceptionHandler',
 'CompletableFuture','thenCompose','whenComplete','Logger','log4j','slf4j','Deadline','NodeView','Owners','Placement','Rendezvous','KeyHash','Murmur','xxhash','Version','Record','RecordCodec','ProtoMapping']
incl=collections.Counter(); tot=0
for f in files:
    for line in open(f):
        stack,c=line.rsplit(' ',1); c=int(c); tot+=c
        for m in marks:
            if m in stack: incl[m]+=c
print(f'total {tot*1000/reqs:.0f} us/req')
for m in marks: print(f'  {incl[m]*1000/reqs:7.1f}  {m}')

java=cnt['java']
print(f'java {java*1000/reqs:.1f} us/req, by library')
for k,c in lib.most_common(): print(f'  {c*1000/reqs:7.1f}  {k}')
