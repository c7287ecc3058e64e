package io.kvorum.node.testing;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * A "lazy" file system mounted for a test: a FUSE loopback of a backing directory on which what was
 * written but never fsynced is lost at {@link #crash()}, as a power cut loses the page cache.
 * Metadata changes (create, rename, link, unlink) are kept; a file is durable as it was at its last
 * fsync or fdatasync, or at the mount if it was not changed since. The model and what it leaves out
 * are in the Go program, {@code src/test/go/powercut/main.go} (go-fuse v2.12.1, fetched through the
 * Go module proxy on first use), which {@link #mount} builds once into {@code target/powercut/}.
 *
 * <p>It needs root (the program mounts with mount(2) itself), {@code /dev/fuse} and Go: {@link
 * #assumeAvailable()} skips a test with the reason elsewhere and fails it when {@code CI=true}. A
 * mount never outlives its test: {@link #close()} unmounts (lazily, {@code umount -l}, if a process
 * still uses it), and the program unmounts by itself when the test's JVM goes away (its stdin
 * ends).
 */
public final class LazyFileSystem implements AutoCloseable {
  private static final Path BASE = Path.of(System.getProperty("basedir", "."));
  private static final Path PROGRAM = BASE.resolve("src/test/go/powercut");
  private static final Path BINARY = BASE.resolve("target/powercut/powercut");
  private static final String ENDED = "\0ended";
  private static boolean built;

  private final Path mountPoint;
  private final Process process;
  private final Writer commands;
  private final BlockingQueue<String> output = new LinkedBlockingQueue<>();
  private final StringBuffer errors = new StringBuffer();

  private LazyFileSystem(Path mountPoint, Process process) {
    this.mountPoint = mountPoint;
    this.process = process;
    this.commands = process.outputWriter(UTF_8);
    drain(process.getInputStream(), output::add, "powercut-out");
    drain(
        process.getErrorStream(),
        line -> errors.append(line.equals(ENDED) ? "" : line + "\n"),
        "powercut-err");
  }

  /**
   * Mounts a lazy file system of {@code backing} (created if missing) on {@code mountPoint} and
   * waits until it is mounted. What {@code backing} holds already is durable.
   */
  public static LazyFileSystem mount(Path backing, Path mountPoint) {
    try {
      Files.createDirectories(backing);
      Files.createDirectories(mountPoint);
      Process process =
          new ProcessBuilder(
                  binary().toString(),
                  backing.toAbsolutePath().toString(),
                  mountPoint.toAbsolutePath().toString())
              .start();
      LazyFileSystem mounted = new LazyFileSystem(mountPoint.toAbsolutePath(), process);
      try {
        mounted.await("mounted", Duration.ofSeconds(30));
      } catch (RuntimeException e) {
        mounted.close();
        throw e;
      }
      return mounted;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Where the file system is mounted. */
  public Path mountPoint() {
    return mountPoint;
  }

  /**
   * Cuts the power: every change not made durable is undone and the file system unmounted. Kill the
   * processes using it first (a process still writing gets EIO, then ENOTCONN).
   *
   * @return the program's account of what it undid, e.g. {@code crashed: 7 files rolled back, 0
   *     bytes written back, 92047 bytes cut off}
   */
  public String crash() {
    send("crash");
    String account = await("crashed:", Duration.ofSeconds(60));
    awaitExit();
    return account;
  }

  /**
   * Where a lazy file system cannot be mounted here, why: no {@code /dev/fuse}, not root, or no
   * {@code go} on the PATH.
   */
  public static Optional<String> unavailable() {
    if (!Files.exists(Path.of("/dev/fuse"))) {
      return Optional.of("there is no /dev/fuse");
    }
    try {
      int uid = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
      if (uid != 0) {
        return Optional.of("mounting a FUSE file system with mount(2) needs root, not uid " + uid);
      }
      Process go = new ProcessBuilder("go", "version").redirectErrorStream(true).start();
      String version = new String(go.getInputStream().readAllBytes(), UTF_8).strip();
      if (!go.waitFor(60, TimeUnit.SECONDS) || go.exitValue() != 0) {
        return Optional.of("`go version` failed: " + version);
      }
      return Optional.empty();
    } catch (IOException | UnsupportedOperationException e) {
      return Optional.of("cannot run go (is it on the PATH?): " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * Skips the calling test, with the reason, where a lazy file system cannot be mounted; fails it
   * when {@code CI=true}, where the power-cut tests must run.
   */
  public static void assumeAvailable() {
    Optional<String> reason = unavailable();
    if (reason.isEmpty()) {
      return;
    }
    if ("true".equalsIgnoreCase(System.getenv("CI"))) {
      Assertions.fail(
          "CI=true but "
              + reason.get()
              + ": the power-cut tests must run in CI (as root, with /dev/fuse and Go)");
    }
    Assumptions.abort("no lazy file system here: " + reason.get());
  }

  /**
   * Unmounts keeping everything, if {@link #crash()} did not; if that fails, or the program is gone
   * and the mount left, {@code umount -l}. Idempotent.
   */
  @Override
  public void close() {
    try {
      if (process.isAlive()) {
        try {
          send("unmount");
        } catch (UncheckedIOException gone) {
          // it is exiting: the wait below sees to it
        }
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
          process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
      }
      if (isMounted()) {
        Process umount =
            new ProcessBuilder("umount", "-l", mountPoint.toString())
                .redirectErrorStream(true)
                .start();
        String said = new String(umount.getInputStream().readAllBytes(), UTF_8).strip();
        if (!umount.waitFor(30, TimeUnit.SECONDS) || isMounted()) {
          throw new IllegalStateException("umount -l " + mountPoint + " failed: " + said);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private boolean isMounted() throws IOException {
    String target = mountPoint.toString();
    return Files.readAllLines(Path.of("/proc/self/mountinfo")).stream()
        .map(line -> line.split(" "))
        .anyMatch(fields -> fields.length > 4 && fields[4].equals(target));
  }

  private void send(String command) {
    try {
      commands.write(command + "\n");
      commands.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("the lazy file system is gone: " + errors, e);
    }
  }

  /** Waits for a line of the program's output that starts with {@code prefix}. */
  private String await(String prefix, Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    try {
      while (true) {
        String line = output.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
        if (line == null) {
          throw new IllegalStateException(
              "the lazy file system said no \"" + prefix + "\" within " + within + ": " + errors);
        }
        if (line.equals(ENDED)) {
          throw new IllegalStateException(
              "the lazy file system exited before \"" + prefix + "\": " + errors);
        }
        if (line.startsWith(prefix)) {
          return line;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private void awaitExit() {
    try {
      if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
        throw new IllegalStateException(
            "the lazy file system did not exit cleanly after the crash: " + errors);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static void drain(InputStream stream, Consumer<String> each, String name) {
    Thread.ofPlatform()
        .daemon()
        .name(name)
        .start(
            () -> {
              try (BufferedReader lines =
                  new BufferedReader(new InputStreamReader(stream, UTF_8))) {
                for (String line; (line = lines.readLine()) != null; ) {
                  each.accept(line);
                }
              } catch (IOException e) {
                each.accept("(unreadable: " + e + ")");
              }
              each.accept(ENDED);
            });
  }

  /** Builds the program once per JVM ({@code go build}: the Go build cache makes it quick). */
  private static synchronized Path binary() throws IOException {
    if (built) {
      return BINARY;
    }
    ProcessBuilder build =
        new ProcessBuilder("go", "build", "-o", BINARY.toAbsolutePath().toString(), ".")
            .directory(PROGRAM.toFile())
            .redirectErrorStream(true);
    build.environment().put("GOFLAGS", "-mod=mod");
    Process go = build.start();
    String said = new String(go.getInputStream().readAllBytes(), UTF_8);
    try {
      if (!go.waitFor(5, TimeUnit.MINUTES) || go.exitValue() != 0) {
        go.destroyForcibly();
        throw new IllegalStateException("go build of " + PROGRAM + " failed: " + said);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    built = true;
    return BINARY;
  }
}
