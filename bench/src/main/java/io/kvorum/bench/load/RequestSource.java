package io.kvorum.bench.load;

/**
 * Produces the requests of a phase, one per sequence number; called on the load thread only. A
 * source that keeps state per connection (the last ETag a chain of conditional writes saw) builds
 * each request for the connection it leaves on and observes the answers.
 */
@FunctionalInterface
public interface RequestSource {
  Request next(long sequence);

  /**
   * Request {@code sequence} as it leaves on connection {@code connection} (numbered from 0, each
   * connection to one target for the whole phase); by default the same as {@link #next(long)}.
   */
  default Request next(long sequence, int connection) {
    return next(sequence);
  }

  /** Whether {@link #answered} wants the answers (their ETag and body are kept only then). */
  default boolean observesAnswers() {
    return false;
  }

  /** The answer to the request connection {@code connection} sent last. */
  default void answered(int connection, Answer answer) {}

  /**
   * What a source that observes answers learns from one.
   *
   * @param etag the {@code ETag} header, or null
   * @param body the body as text (problem+json for an error)
   */
  record Answer(int status, String etag, String body) {}
}
