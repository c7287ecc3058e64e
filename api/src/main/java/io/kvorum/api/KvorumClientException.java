package io.kvorum.api;

/** The server answered with an error status; {@link #detail()} is its problem detail, if any. */
public final class KvorumClientException extends RuntimeException {
  private final int status;
  private final String detail;

  public KvorumClientException(int status, String detail) {
    super("HTTP " + status + (detail == null || detail.isEmpty() ? "" : ": " + detail));
    this.status = status;
    this.detail = detail;
  }

  public int status() {
    return status;
  }

  public String detail() {
    return detail;
  }

  /** Whether the request failed because too few replicas answered (504). */
  public boolean notEnoughReplicas() {
    return status == 504;
  }
}
