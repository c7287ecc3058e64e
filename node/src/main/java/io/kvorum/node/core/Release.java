package io.kvorum.node.core;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The release this node is, as the build wrote it ({@code release.properties}, filtered from the
 * project's version): what {@code --version}, {@code GET /v0/cluster} and the {@code
 * kvorum_build_info} metric show.
 */
public final class Release {
  private static final String VERSION = load();

  private Release() {}

  /** The release, e.g. {@code 0.2.0}. */
  public static String version() {
    return VERSION;
  }

  private static String load() {
    try (InputStream in = Release.class.getResourceAsStream("release.properties")) {
      if (in == null) {
        throw new IllegalStateException("release.properties is missing from the class path");
      }
      Properties properties = new Properties();
      properties.load(in);
      String version = properties.getProperty("version", "");
      if (version.isBlank() || version.startsWith("${")) {
        throw new IllegalStateException("release.properties was not filtered by the build");
      }
      return version;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read release.properties", e);
    }
  }
}
