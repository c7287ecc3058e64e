package io.kvorum.api;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * What one item of a batch came to, as that item alone would have: its status ({@code 200} a get
 * found its key, {@code 404} it did not, {@code 201} a put stored, {@code 202} a delete), the
 * entity tag of the version read or written, a get's value; or, for a failed item, its status and
 * the server's problem as an exception, which says whether retrying the item is worth it.
 *
 * @param key the item's key
 * @param status the status the item alone would have had
 * @param etag the version's entity tag; null when absent or failed
 * @param value a found get's value; null otherwise
 * @param failure why the item failed; null when it did not
 */
public record BatchItemResult(
    String key, int status, String etag, byte[] value, KvorumClientException failure) {
  /** Whether the item did what it asked: found or absent for a get, stored for a write. */
  public boolean succeeded() {
    return failure == null;
  }

  /** A get's value; empty when the key is absent (or the item failed). */
  public Optional<byte[]> found() {
    return Optional.ofNullable(value);
  }

  public Optional<String> foundUtf8() {
    return found().map(v -> new String(v, StandardCharsets.UTF_8));
  }
}
