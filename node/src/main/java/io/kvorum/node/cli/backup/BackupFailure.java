package io.kvorum.node.cli.backup;

/**
 * Why a backup, a verification or a restore stopped, for one line on stderr, with the exit code
 * that says what kind of failure it is ({@link io.kvorum.node.cli.client.ExitCodes}).
 */
final class BackupFailure extends RuntimeException {
  private final int exitCode;

  BackupFailure(int exitCode, String message) {
    super(message);
    this.exitCode = exitCode;
  }

  BackupFailure(int exitCode, String message, Throwable cause) {
    super(message, cause);
    this.exitCode = exitCode;
  }

  int exitCode() {
    return exitCode;
  }
}
