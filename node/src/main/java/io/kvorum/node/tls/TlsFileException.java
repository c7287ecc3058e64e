package io.kvorum.node.tls;

import java.nio.file.Path;

/** A TLS file cannot be read or is not what it must be; says which file and why. */
public final class TlsFileException extends Exception {
  private static final long serialVersionUID = 1L;

  /** What a file holds. */
  public enum Role {
    CERTIFICATE,
    PRIVATE_KEY,
    TRUSTED_CA
  }

  private final Role role;
  private final transient Path file;

  TlsFileException(Role role, Path file, String reason) {
    super(file + ": " + reason);
    this.role = role;
    this.file = file;
  }

  public Role role() {
    return role;
  }

  public Path file() {
    return file;
  }

  /** Why, without the file name. */
  public String reason() {
    return getMessage().substring(String.valueOf(file).length() + 2);
  }
}
