package io.kvorum.api;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The server answered with an error status. {@link #detail()} is its problem detail (RFC 9457), if
 * any; the subclasses name the answers a caller handles differently: {@link NotEnoughReplicas}
 * (504: the quorum was not reached, a write may or may not have applied), {@link Unavailable} (503,
 * after the client's retries), {@link InvalidRequest} (400, 405, 413), {@link Unauthorized} (401)
 * and {@link Forbidden} (403).
 */
public class KvorumClientException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final String title;
  private final String detail;

  public KvorumClientException(int status, String detail) {
    this(status, null, detail);
  }

  KvorumClientException(int status, String title, String detail) {
    super(
        "HTTP "
            + status
            + (title == null || title.isEmpty() ? "" : " " + title)
            + (detail == null || detail.isEmpty() ? "" : ": " + detail));
    this.status = status;
    this.title = title;
    this.detail = detail;
  }

  /** The error an answer means: its status, and title and detail from a problem+json body. */
  static KvorumClientException of(int status, byte[] body) {
    String title = null;
    String detail = null;
    try {
      Map<String, Object> problem = Json.object(body);
      title = problem.get("title") instanceof String t ? t : null;
      detail = problem.get("detail") instanceof String d ? d : null;
    } catch (IOException e) {
      detail = body.length == 0 ? null : new String(body, StandardCharsets.UTF_8).strip();
    }
    return switch (status) {
      case 400, 405, 413 -> new InvalidRequest(status, title, detail);
      case 401 -> new Unauthorized(title, detail);
      case 403 -> new Forbidden(title, detail);
      case 503 -> new Unavailable(title, detail);
      case 504 -> new NotEnoughReplicas(title, detail);
      default -> new KvorumClientException(status, title, detail);
    };
  }

  public int status() {
    return status;
  }

  /** The problem's title (the status' reason phrase), or null. */
  public String title() {
    return title;
  }

  public String detail() {
    return detail;
  }

  /** Whether the request failed because too few replicas answered (504). */
  public boolean notEnoughReplicas() {
    return status == 504;
  }

  /** 504: fewer than {@code ack} replicas answered in time; a write may or may not have applied. */
  public static final class NotEnoughReplicas extends KvorumClientException {
    private static final long serialVersionUID = 1L;

    NotEnoughReplicas(String title, String detail) {
      super(504, title, detail);
    }
  }

  /** 503: the nodes asked were starting, shutting down or overloaded, through every retry. */
  public static final class Unavailable extends KvorumClientException {
    private static final long serialVersionUID = 1L;

    Unavailable(String title, String detail) {
      super(503, title, detail);
    }
  }

  /** 400, 405 or 413: the request itself was wrong (a parameter, a key or value too large). */
  public static final class InvalidRequest extends KvorumClientException {
    private static final long serialVersionUID = 1L;

    InvalidRequest(int status, String title, String detail) {
      super(status, title, detail);
    }
  }

  /** 401: the node asks for a token and none, or an unknown one, was sent. */
  public static final class Unauthorized extends KvorumClientException {
    private static final long serialVersionUID = 1L;

    Unauthorized(String title, String detail) {
      super(401, title, detail);
    }
  }

  /** 403: the token's role does not allow the request. */
  public static final class Forbidden extends KvorumClientException {
    private static final long serialVersionUID = 1L;

    Forbidden(String title, String detail) {
      super(403, title, detail);
    }
  }
}
