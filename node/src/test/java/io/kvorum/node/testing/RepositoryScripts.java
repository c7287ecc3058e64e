package io.kvorum.node.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The repository's own scripts ({@code bin/kvorum}, {@code bin/find-java}, {@code ./mvnw}) run as a
 * user runs them: in a chosen environment, with the {@code java} on the PATH chosen by the test.
 */
public final class RepositoryScripts {
  private RepositoryScripts() {}

  /** What a script did. */
  public record Outcome(int exitCode, String stdout, String stderr) {
    /** The lines of stderr, without a trailing empty one. */
    public List<String> stderrLines() {
      return stderr.lines().toList();
    }
  }

  /** The root of the repository under test (set by the build). */
  public static Path repository() {
    Path root = Path.of(System.getProperty("kvorum.repository", "..")).toAbsolutePath().normalize();
    if (!Files.isRegularFile(root.resolve("mvnw"))) {
      throw new IllegalStateException(root + " is not the repository root (no mvnw)");
    }
    return root;
  }

  /**
   * A JDK 17, the default {@code java} of Debian 12 that kvorum cannot run on: {@code
   * -Dkvorum.test.jdk17=HOME}, else one under /usr/lib/jvm.
   */
  public static Optional<Path> jdk17() {
    String chosen = System.getProperty("kvorum.test.jdk17", "");
    if (!chosen.isEmpty()) {
      return Optional.of(Path.of(chosen)).filter(home -> featureVersion(home) == 17);
    }
    try (Stream<Path> homes = Files.list(Path.of("/usr/lib/jvm"))) {
      return homes.filter(home -> featureVersion(home) == 17).sorted().findFirst();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** The feature release (17, 21, 25…) of the Java in {@code home}, from its release file; or 0. */
  public static int featureVersion(Path home) {
    try {
      if (!Files.isExecutable(home.resolve("bin/java"))) {
        return 0;
      }
      for (String line : Files.readAllLines(home.resolve("release"))) {
        if (line.startsWith("JAVA_VERSION=\"")) {
          String version = line.substring("JAVA_VERSION=\"".length()).replaceFirst("^1\\.", "");
          return Integer.parseInt(version.replaceFirst("[^0-9].*", ""));
        }
      }
      return 0;
    } catch (IOException | NumberFormatException e) {
      return 0;
    }
  }

  /**
   * This process's environment without anything that would choose a Java for the scripts
   * (JAVA_HOME, KVORUM_*), so that only what the test puts on the PATH is left.
   */
  public static Map<String, String> environmentWithoutJava() {
    Map<String, String> env = new HashMap<>(System.getenv());
    env.keySet().removeIf(name -> name.equals("JAVA_HOME") || name.startsWith("KVORUM_"));
    return env;
  }

  /**
   * A directory for the PATH holding the few tools the scripts use before they find a Java, and a
   * {@code java} only if {@code java} is given: so no other Java on this machine is on it.
   */
  public static Path toolsDirectory(Path dir, Optional<Path> java) {
    try {
      Files.createDirectories(dir);
      for (String tool :
          List.of("bash", "sh", "env", "sed", "readlink", "dirname", "basename", "uname", "cat")) {
        Path found =
            Stream.of("/usr/bin", "/bin")
                .map(bin -> Path.of(bin, tool))
                .filter(Files::isExecutable)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no " + tool + " in /usr/bin, /bin"));
        // A script, not a link: the temporary directory's clean-up warns of links leading out.
        Path script = dir.resolve(tool);
        Files.writeString(script, "#!/bin/sh\nexec " + found + " \"$@\"\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
      }
      if (java.isPresent()) {
        Files.createSymbolicLink(dir.resolve("java"), java.get());
      }
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Runs {@code command} in {@code dir} with exactly {@code env}; kills it after {@code limit}. */
  public static Outcome run(Path dir, Map<String, String> env, Duration limit, String... command) {
    try {
      Path out = Files.createTempFile("script-", ".out");
      Path err = Files.createTempFile("script-", ".err");
      try {
        ProcessBuilder builder =
            new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectOutput(out.toFile())
                .redirectError(err.toFile());
        builder.environment().clear();
        builder.environment().putAll(env);
        Process process = builder.start();
        if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
          process.descendants().forEach(ProcessHandle::destroyForcibly);
          process.destroyForcibly();
          throw new IllegalStateException(
              String.join(" ", command)
                  + " did not finish within "
                  + limit
                  + "; it printed:\n"
                  + tail(out, 40)
                  + "\n"
                  + tail(err, 40));
        }
        return new Outcome(
            process.exitValue(),
            Files.readString(out, StandardCharsets.UTF_8),
            Files.readString(err, StandardCharsets.UTF_8));
      } finally {
        Files.deleteIfExists(out);
        Files.deleteIfExists(err);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The last {@code lines} lines of a file, for failure messages. */
  public static String tail(Path file, int lines) {
    try {
      List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }

  /** The PATH entries of {@code dirs}, in order. */
  public static String path(Path... dirs) {
    List<String> entries = new ArrayList<>();
    for (Path dir : dirs) {
      entries.add(dir.toString());
    }
    return String.join(":", entries);
  }
}
