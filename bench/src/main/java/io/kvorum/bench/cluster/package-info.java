/** The kvorum cluster a benchmark runs against, as node processes on this machine. */
package io.kvorum.bench.cluster;
