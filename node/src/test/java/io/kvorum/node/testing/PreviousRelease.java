package io.kvorum.node.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The node jar of the previous release, built from git at the commit named here (the one place;
 * {@code CHANGELOG.md} names it too) with the JDK running the tests, as its own README builds it.
 * Built once per commit (its tests not compiled, without Error Prone) into {@code
 * ~/.cache/kvorum-releases/<commit>/kvorum-node.jar} (or {@code -Dkvorum.releases.cache=DIR});
 * later runs take it from there. A clone without the commit (a shallow one) fails: a skipped
 * upgrade test would pass CI without showing anything.
 */
public final class PreviousRelease {
  /** kvorum 0.2.0: what this release upgrades from (0.1.0 was e3321b1). */
  public static final String VERSION = "0.2.0";

  public static final String COMMIT = "a161ca0da55c25204fd88e360b7feff05c19515c";

  private static final long BUILD_MINUTES = 20;

  private PreviousRelease() {}

  /** The previous release's fat jar, built now if no run built it before. */
  public static synchronized Path jar() {
    Path cached = cache().resolve(COMMIT).resolve("kvorum-node.jar");
    if (Files.isRegularFile(cached)) {
      return cached;
    }
    Path repository = RepositoryScripts.repository();
    requireCommit(repository);
    try {
      Files.createDirectories(cached.getParent());
      Path source = Files.createTempDirectory(cached.getParent(), "build-");
      try {
        Path archive = source.resolve("source.tar");
        run(repository, "git", "archive", "--format=tar", "-o", archive.toString(), COMMIT);
        run(source, "tar", "-xf", archive.toString());
        // Its tests are neither compiled nor run and its sources not checked by Error Prone: the
        // jar is what the tests use (75 CPU-s down to 28 on two cores, on a fresh machine).
        run(
            source,
            "./mvnw",
            "-q",
            "-B",
            "-ntp",
            "-Dmaven.test.skip",
            "-DskipErrorProne",
            "package",
            "-pl",
            "node",
            "-am");
        Path built = source.resolve("node/target/kvorum-node.jar");
        Path partial = Files.createTempFile(cached.getParent(), "kvorum-node-", ".jar");
        Files.copy(built, partial, StandardCopyOption.REPLACE_EXISTING);
        Files.move(partial, cached, StandardCopyOption.ATOMIC_MOVE);
      } finally {
        deleteTree(source);
      }
      return cached;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot build kvorum " + VERSION + " from " + COMMIT, e);
    }
  }

  private static Path cache() {
    String chosen = System.getProperty("kvorum.releases.cache", "");
    return chosen.isEmpty()
        ? Path.of(System.getProperty("user.home"), ".cache", "kvorum-releases")
        : Path.of(chosen);
  }

  private static void requireCommit(Path repository) {
    try {
      run(repository, "git", "cat-file", "-e", COMMIT + "^{commit}");
    } catch (IllegalStateException e) {
      throw new IllegalStateException(
          "the clone at "
              + repository
              + " lacks commit "
              + COMMIT
              + " (kvorum "
              + VERSION
              + "), which the upgrade test builds: a shallow clone? Run `git fetch --unshallow`"
              + " (CI clones main fully)",
          e);
    }
  }

  /** Runs {@code command} in {@code dir} with this JVM's JDK; fails with its output if it fails. */
  private static void run(Path dir, String... command) {
    try {
      Path log = Files.createTempFile("kvorum-previous-release-", ".log");
      try {
        ProcessBuilder builder =
            new ProcessBuilder(List.of(command))
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process process = builder.start();
        if (!process.waitFor(BUILD_MINUTES, TimeUnit.MINUTES)) {
          process.destroyForcibly();
          throw new IllegalStateException(
              String.join(" ", command) + " did not end within " + BUILD_MINUTES + " minutes");
        }
        if (process.exitValue() != 0) {
          String output = Files.readString(log);
          throw new IllegalStateException(
              String.join(" ", command)
                  + " in "
                  + dir
                  + " exited "
                  + process.exitValue()
                  + ": "
                  + (output.length() > 4000
                      ? "…" + output.substring(output.length() - 4000)
                      : output));
        }
      } finally {
        Files.deleteIfExists(log);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + command[0], e);
    }
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }
}
