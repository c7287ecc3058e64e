package io.kvorum.bench.load;

/** Produces the requests of a phase, one per sequence number; called on the load thread only. */
@FunctionalInterface
public interface RequestSource {
  Request next(long sequence);
}
