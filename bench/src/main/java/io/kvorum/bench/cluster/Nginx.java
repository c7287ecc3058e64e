package io.kvorum.bench.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * nginx answering every request with an empty 204 on 127.0.0.1 (one worker per core, keep-alive, no
 * access log): a server that costs next to nothing, the ceiling any HTTP server can reach on this
 * machine with this generator. Its configuration, pid file and error log live in a directory of the
 * results.
 */
public final class Nginx implements AutoCloseable {
  private static final Pattern SPACE = Pattern.compile(" ");
  private static final Pattern COLON = Pattern.compile(":");
  private final Path conf;
  private final long master;

  private Nginx(Path conf, long master) {
    this.conf = conf;
    this.master = master;
  }

  /**
   * Starts nginx (from the {@code PATH}, {@code /usr/sbin} included) listening on {@code port}.
   *
   * @throws IOException if nginx is missing or does not start
   */
  public static Nginx start(Path dir, int port) throws IOException, InterruptedException {
    Files.createDirectories(dir);
    Path conf = dir.resolve("nginx.conf").toAbsolutePath();
    Path pidFile = dir.resolve("nginx.pid").toAbsolutePath();
    Files.writeString(
        conf,
        String.join(
            "\n",
            "worker_processes auto;",
            "pid " + pidFile + ";",
            "error_log " + dir.toAbsolutePath().resolve("nginx-error.log") + ";",
            "events { worker_connections 4096; }",
            "http {",
            "  access_log off;",
            "  keepalive_requests 1000000;",
            "  server {",
            "    listen 127.0.0.1:" + port + ";",
            "    location / { return 204; }",
            "  }",
            "}",
            ""));
    run(dir, binary(), "-c", conf.toString());
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!Files.exists(pidFile) || Files.readString(pidFile).isBlank()) {
      if (System.nanoTime() > deadline) {
        throw new IOException("nginx wrote no pid file " + pidFile);
      }
      Thread.sleep(50);
    }
    return new Nginx(conf, Long.parseLong(Files.readString(pidFile).trim()));
  }

  /** The master and its workers. */
  public List<Long> pids() throws IOException {
    List<Long> pids = new ArrayList<>(List.of(master));
    try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
      for (Path proc : procs) {
        try {
          String stat = Files.readString(proc.resolve("stat"), StandardCharsets.US_ASCII);
          List<String> fields =
              SPACE.splitAsStream(stat.substring(stat.lastIndexOf(')') + 2)).toList();
          if (Long.parseLong(fields.get(1)) == master) {
            pids.add(Long.parseLong(proc.getFileName().toString()));
          }
        } catch (IOException e) {
          // The process exited meanwhile.
        }
      }
    }
    return pids;
  }

  /** Stops nginx and waits (up to 10 s) for its master to exit. */
  @Override
  public void close() throws IOException {
    try {
      run(conf.getParent(), binary(), "-c", conf.toString(), "-s", "stop");
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (Files.exists(Path.of("/proc/" + master)) && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static String binary() throws IOException {
    String path = System.getenv().getOrDefault("PATH", "") + ":/usr/sbin:/usr/local/sbin";
    for (String dir : COLON.splitAsStream(path).toList()) {
      Path nginx = Path.of(dir.isEmpty() ? "." : dir, "nginx");
      if (Files.isExecutable(nginx)) {
        return nginx.toString();
      }
    }
    throw new IOException("--calibrate needs nginx (apt-get install nginx)");
  }

  /** Runs an nginx command; its output goes to a file, as the daemon may keep it open. */
  private static void run(Path dir, String... command) throws IOException, InterruptedException {
    Path out = dir.resolve("nginx-command.log");
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    if (process.waitFor() != 0) {
      throw new IOException(
          String.join(" ", command) + " failed: " + Files.readString(out, StandardCharsets.UTF_8));
    }
  }
}
