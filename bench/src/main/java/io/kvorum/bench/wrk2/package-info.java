/**
 * wrk2 (Gil Tene's constant-rate wrk) as the runner's load generator: one process per node at its
 * share of the rate, its output parsed and merged into the runner's results.
 */
package io.kvorum.bench.wrk2;
