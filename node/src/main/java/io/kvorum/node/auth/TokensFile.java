package io.kvorum.node.auth;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tokens file of {@code --auth-tokens}: read once at start, where a bad file is an error, then
 * re-read by {@link #reloadIfChanged()} (the node calls it every second). A changed file that
 * parses replaces the tokens at once; one that does not, or a file that cannot be read, leaves the
 * tokens in force and is logged as an error once (until the file changes again), so that a typo in
 * a rotation never locks every client out. Thread-safe: {@link #tokens()} is a volatile read, for
 * the event loops; reloads run on one other thread.
 */
public final class TokensFile {
  private static final Logger log = LoggerFactory.getLogger(TokensFile.class);

  /** How often a node checks the file for changes ({@link #reloadIfChanged()}). */
  public static final Duration RELOAD_INTERVAL = Duration.ofSeconds(1);

  private final Path path;
  private volatile AccessTokens tokens;
  private byte[] lastSeen;
  private boolean unreadable;

  private TokensFile(Path path, byte[] content, AccessTokens tokens) {
    this.path = path;
    this.lastSeen = content;
    this.tokens = tokens;
  }

  /**
   * Reads and parses the file.
   *
   * @throws UncheckedIOException if it cannot be read
   * @throws IllegalArgumentException if it is malformed, naming the line
   */
  public static TokensFile load(Path path) {
    byte[] content = read(path);
    AccessTokens tokens = AccessTokens.parse(new String(content, StandardCharsets.UTF_8));
    TokensFile file = new TokensFile(path, content, tokens);
    log.info("client authentication on: {} from {}", tokens, path);
    warnOfShortTokens(path, tokens);
    return file;
  }

  /**
   * Reads and parses the file as {@link #load} does, without logging (the node checks its flags
   * before its logging is set up).
   */
  public static AccessTokens check(Path path) {
    return AccessTokens.parse(new String(read(path), StandardCharsets.UTF_8));
  }

  /** The tokens in force. */
  public AccessTokens tokens() {
    return tokens;
  }

  public Path path() {
    return path;
  }

  /**
   * Reads the file again and takes its tokens if it changed and parses.
   *
   * @return whether the tokens were replaced
   */
  public synchronized boolean reloadIfChanged() {
    byte[] content;
    try {
      content = read(path);
    } catch (UncheckedIOException e) {
      if (!unreadable) {
        unreadable = true;
        log.error(
            "the tokens file {} {}; the {} read before stay in force",
            path,
            e.getMessage(),
            tokens);
      }
      return false;
    }
    if (unreadable) {
      unreadable = false;
      log.info("the tokens file {} can be read again", path);
    }
    if (Arrays.equals(content, lastSeen)) {
      return false;
    }
    lastSeen = content;
    AccessTokens parsed;
    try {
      parsed = AccessTokens.parse(new String(content, StandardCharsets.UTF_8));
    } catch (IllegalArgumentException e) {
      log.error(
          "the tokens file {} changed but is malformed, so the {} read before stay in force: {}",
          path,
          tokens,
          e.getMessage());
      return false;
    }
    tokens = parsed;
    log.info("tokens file {} reloaded: {}", path, parsed);
    warnOfShortTokens(path, parsed);
    return true;
  }

  private static void warnOfShortTokens(Path path, AccessTokens tokens) {
    if (tokens.shortTokens() > 0) {
      log.warn(
          "{} of the tokens in {} are shorter than {} characters and may be guessed; use long"
              + " random ones (e.g. openssl rand -hex 32)",
          tokens.shortTokens(),
          path,
          AccessTokens.SHORT_TOKEN);
    }
  }

  private static byte[] read(Path path) {
    try {
      return Files.readAllBytes(path);
    } catch (IOException e) {
      String what = e.getClass().getSimpleName();
      throw new UncheckedIOException(
          "cannot be read ("
              + (e.getMessage() == null || e.getMessage().equals(path.toString())
                  ? what
                  : what + ": " + e.getMessage())
              + ")",
          e);
    }
  }
}
