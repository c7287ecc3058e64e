package io.kvorum.node.config;

/** A flag has an invalid value; the message names the flag and the value. */
public final class ConfigException extends RuntimeException {
  public ConfigException(String flag, String value, String reason) {
    super(flag + " '" + value + "': " + reason);
  }

  public ConfigException(String message) {
    super(message);
  }
}
