package io.kvorum.api;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;

/**
 * One event of a change feed (SPEC §12): a write, a delete, or progress. Every event carries the
 * cursor a feed resumes after it; a watch resumes from it by itself.
 *
 * @param kind what happened
 * @param key the key written or deleted (empty for progress)
 * @param value the value written (empty for a delete or progress)
 * @param etag the version's entity tag (null for progress)
 * @param expiresAt when the value expires, if it does
 * @param cursor where a feed resumes after this event
 */
public record ChangeEvent(
    Kind kind, byte[] key, byte[] value, String etag, Optional<Instant> expiresAt, String cursor) {
  /** What an event says. */
  public enum Kind {
    /** A value was written. */
    PUT,
    /** The key was deleted. */
    DELETE,
    /** Nothing at or before the cursor remains to be sent. */
    PROGRESS
  }

  public String keyUtf8() {
    return new String(key, StandardCharsets.UTF_8);
  }

  public String valueUtf8() {
    return new String(value, StandardCharsets.UTF_8);
  }

  public boolean isChange() {
    return kind != Kind.PROGRESS;
  }
}
