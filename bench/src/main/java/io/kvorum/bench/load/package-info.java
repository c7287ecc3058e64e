/**
 * An open-loop HTTP/1.1 load generator: requests leave at a constant rate whatever the server does,
 * and each latency is measured from the time the request was due, not from when it was sent (no
 * coordinated omission, as wrk2).
 */
package io.kvorum.bench.load;
