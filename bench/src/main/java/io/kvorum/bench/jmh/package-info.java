/** JMH micro-benchmarks of kvorum's hot code. */
package io.kvorum.bench.jmh;
