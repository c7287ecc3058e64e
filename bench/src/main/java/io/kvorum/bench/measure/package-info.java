/**
 * What a measured interval cost besides its latency: CPU time and context switches of the node
 * processes and the load generator (from Linux's /proc), GC pauses (from the nodes' GC logs), and
 * whether RocksDB had settled before it (from the nodes' metrics and RocksDB's LOG).
 */
package io.kvorum.bench.measure;
