package io.kvorum.api;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The server answered with an error status. {@link #body()} is the answer's body as it came (a
 * problem+json document, RFC 9457, from a kvorum node), {@link #title()} and {@link #detail()} the
 * problem's fields; the subclasses name the answers a caller handles differently: {@link
 * NotEnoughReplicas} (504: the quorum was not reached, a write may or may not have applied), {@link
 * Unavailable} (503, after the client's retries), {@link InvalidRequest} (400, 405, 413), {@link
 * Unauthorized} (401) and {@link Forbidden} (403).
 */
public class KvorumClientException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final String title;
  private final String detail;
  private final String body;

  public KvorumClientException(int status, String detail) {
    this(status, null, detail, null);
  }

  KvorumClientException(int status, String title, String detail, String body) {
    super(
        "HTTP "
            + status
            + (title == null || title.isEmpty() ? "" : " " + title)
            + (detail == null || detail.isEmpty() ? "" : ": " + detail));
    this.status = status;
    this.title = title;
    this.detail = detail;
    this.body = body;
  }

  /** The error an answer means: its status, and title and detail from a problem+json body. */
  static KvorumClientException of(int status, byte[] body) {
    String text = body.length == 0 ? null : new String(body, StandardCharsets.UTF_8);
    try {
      Map<String, Object> problem = Json.object(body);
      return of(
          status,
          problem.get("title") instanceof String t ? t : null,
          problem.get("detail") instanceof String d ? d : null,
          text);
    } catch (IOException e) {
      return of(status, null, text == null ? null : text.strip(), text);
    }
  }

  /** The error of {@code status}, of the subclass that names it. */
  static KvorumClientException of(int status, String title, String detail, String body) {
    return switch (status) {
      case 400, 405, 413 -> new InvalidRequest(status, title, detail, body);
      case 401 -> new Unauthorized(title, detail, body);
      case 403 -> new Forbidden(title, detail, body);
      case 503 -> new Unavailable(title, detail, body);
      case 504 -> new NotEnoughReplicas(title, detail, body);
      default -> new KvorumClientException(status, title, detail, body);
    };
  }

  public int status() {
    return status;
  }

  /** The problem's title (the status' reason phrase), or null. */
  public String title() {
    return title;
  }

  /** The problem's detail (from a body that is no problem+json: the body's text), or null. */
  public String detail() {
    return detail;
  }

  /**
   * The body of the answer as it came, a problem+json document from a kvorum node (its extension
   * members too, e.g. {@code failed}: the replicas that did not answer, and why), or null if empty.
   */
  public String body() {
    return body;
  }

  /** Whether the request failed because too few replicas answered (504). */
  public boolean notEnoughReplicas() {
    return status == 504;
  }

  /** 504: fewer than {@code ack} replicas answered in time; a write may or may not have applied. */
  public static final class NotEnoughReplicas extends KvorumClientException {
    private static final long serialVersionUID = 1L;

    NotEnoughReplicas(String title, String detail, String body) {
      super(504, title, detail, body);
    }
  }

  /** 503: the nodes asked were starting, shutting down or overloaded, through every retry. */
  public static final class Unavailable extends KvorumClientException {
    private static final long serialVersionUID = 1L;

    Unavailable(String title, String detail, String body) {
      super(503, title, detail, body);
    }
  }

  /** 400, 405 or 413: the request itself was wrong (a parameter, a key or value too large). */
  public static final class InvalidRequest extends KvorumClientException {
    private static final long serialVersionUID = 1L;

    InvalidRequest(int status, String title, String detail, String body) {
      super(status, title, detail, body);
    }
  }

  /** 401: the node asks for a token and none, or an unknown one, was sent. */
  public static final class Unauthorized extends KvorumClientException {
    private static final long serialVersionUID = 1L;

    Unauthorized(String title, String detail, String body) {
      super(401, title, detail, body);
    }
  }

  /** 403: the token's role does not allow the request. */
  public static final class Forbidden extends KvorumClientException {
    private static final long serialVersionUID = 1L;

    Forbidden(String title, String detail, String body) {
      super(403, title, detail, body);
    }
  }
}
