package io.kvorum.node.cli.client;

/** The exit codes of {@code kvorum-node} and its sub-commands. */
public final class ExitCodes {
  /** Done: the node stopped normally, or the operator's request was taken. */
  public static final int OK = 0;

  /** The request was refused or the node could not be reached; an unexpected failure. */
  public static final int FAILURE = 1;

  /** Invalid options or configuration. */
  public static final int CONFIG = 2;

  /** {@code get}: the key is absent (never written, deleted or expired). */
  public static final int ABSENT = 3;

  /**
   * {@code --wait}: the work started but did not finish: the change ended without its node leaving,
   * a peer was not repaired, or the nodes stopped answering while it ran.
   */
  public static final int UNFINISHED = 4;

  /** {@code backup}, {@code restore}: the bucket does not exist. */
  public static final int BUCKET_MISSING = 5;

  /** {@code backup}, {@code restore}: object storage refused the credentials, or has none. */
  public static final int CREDENTIALS = 6;

  /**
   * {@code backup verify}, {@code restore}: the backup is damaged: an object is missing or its
   * checksum is wrong (named).
   */
  public static final int DAMAGED = 7;

  /** {@code restore}, {@code backup verify}: the backup was written by a newer release. */
  public static final int NEWER = 8;

  private ExitCodes() {}
}
