package io.kvorum.node.sim.check;

import io.kvorum.node.core.Version;
import java.util.Objects;

/**
 * One compare-and-set on one register as a client saw it: the input of {@link Linearizability}'s
 * search, the Java twin of {@code io.kvorum.node.testing.Porcupine.Operation} with versions for
 * entity tags.
 *
 * @param client the client's id
 * @param call when it was sent, virtual nanoseconds
 * @param ret when its answer arrived (for {@link Outcome#UNKNOWN}, ignored: it may take effect at
 *     any time after its call)
 * @param read a write that expects a version never issued: always refused, it reads the register
 * @param delete whether it deletes ({@code DELETE} with {@code If-Match}): applied, it leaves the
 *     register absent
 * @param expect the version the write required, null for absent ({@code If-None-Match: *})
 * @param result how it ended
 * @param tag the new version when {@link Outcome#OK}, the current one when {@link Outcome#REFUSED}
 *     (null when absent); null when {@link Outcome#UNKNOWN}
 */
public record CasOp(
    int client,
    long call,
    long ret,
    boolean read,
    boolean delete,
    Version expect,
    Outcome result,
    Version tag) {
  public CasOp {
    Objects.requireNonNull(result, "result");
    if (ret < call) {
      throw new IllegalArgumentException("returned (" + ret + ") before its call (" + call + ")");
    }
    if (result == Outcome.OK && tag == null) {
      throw new IllegalArgumentException("a write answered OK names its new version");
    }
  }

  /**
   * An operation in the Go checker's terms: tags as entity tags ({@code "\"17.0\""}, {@code ""} for
   * absent), results {@code ok}, {@code refused} or {@code unknown}.
   */
  public static CasOp ofEtags(
      int client, long call, long ret, boolean read, String expect, String result, String etag) {
    Outcome outcome =
        switch (result) {
          case "ok" -> Outcome.OK;
          case "refused" -> Outcome.REFUSED;
          case "unknown" -> Outcome.UNKNOWN;
          default -> throw new IllegalArgumentException("a result of " + result);
        };
    return new CasOp(
        client,
        call,
        ret,
        read,
        false,
        version(expect),
        outcome,
        outcome == Outcome.UNKNOWN ? null : version(etag));
  }

  /** The version an entity tag names ({@code "\"<millis>.<counter>\""}), null for {@code ""}. */
  public static Version version(String etag) {
    String bare = etag.replace("\"", "");
    if (bare.isEmpty()) {
      return null;
    }
    int dot = bare.indexOf('.');
    if (dot < 0) {
      throw new IllegalArgumentException("not an entity tag: " + etag);
    }
    return Version.of(
        Long.parseLong(bare.substring(0, dot)), Integer.parseInt(bare.substring(dot + 1)));
  }

  @Override
  public String toString() {
    String what =
        read ? "read" : (delete ? "delete" : "put") + "(expect " + Describe.version(expect) + ")";
    String answer =
        switch (result) {
          case OK -> "OK " + tag;
          case REFUSED -> "refused, current " + Describe.version(tag);
          case UNKNOWN -> "unknown";
        };
    return "client "
        + client
        + " "
        + what
        + " -> "
        + answer
        + " ["
        + Describe.time(call)
        + ", "
        + (result == Outcome.UNKNOWN ? "-" : Describe.time(ret))
        + "]";
  }
}
