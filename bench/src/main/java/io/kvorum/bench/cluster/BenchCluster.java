package io.kvorum.bench.cluster;

import io.kvorum.bench.measure.GcLog;
import io.kvorum.bench.measure.Settler;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A kvorum cluster of separate node processes on 127.0.0.1 for benchmarks: node {@code i} is {@code
 * node-i} with HTTP port {@code httpPort + i}, gRPC port {@code grpcPort + i}, data in {@code
 * dir/data/node-i}, its output in {@code dir/node-i.log} and its GC log in {@code
 * dir/gc-node-i.log}.
 */
public final class BenchCluster implements AutoCloseable {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final List<Process> processes = new ArrayList<>();
  private final List<Integer> httpPorts = new ArrayList<>();
  private final Path dir;

  private BenchCluster(Path dir) {
    this.dir = dir;
  }

  /** Starts the nodes and waits until every one reports ready. */
  public static BenchCluster start(
      Path jar,
      Path dir,
      int nodes,
      int httpPort,
      int grpcPort,
      List<String> jvmOptions,
      List<String> nodeFlags)
      throws IOException {
    BenchCluster cluster = new BenchCluster(dir);
    List<String> peers = new ArrayList<>();
    for (int i = 0; i < nodes; i++) {
      peers.add("node-" + i + "=127.0.0.1:" + (grpcPort + i));
    }
    try {
      for (int i = 0; i < nodes; i++) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add(GcLog.jvmOption(cluster.gcLog(i)));
        command.addAll(List.of("-jar", jar.toString()));
        command.addAll(
            List.of(
                "--node-id", "node-" + i,
                "--http-host", "127.0.0.1",
                "--http-port", String.valueOf(httpPort + i),
                "--grpc-port", String.valueOf(grpcPort + i),
                "--data-dir", cluster.dataDir(i).toString(),
                "--peers", String.join(",", peers)));
        command.addAll(nodeFlags);
        Files.createDirectories(dir);
        ProcessBuilder builder =
            new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("node-" + i + ".log").toFile());
        builder.environment().keySet().removeIf(name -> name.startsWith("KVORUM_"));
        cluster.processes.add(builder.start());
        cluster.httpPorts.add(httpPort + i);
      }
      cluster.awaitReady(Duration.ofSeconds(60));
      return cluster;
    } catch (IOException | RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  public List<InetSocketAddress> httpAddresses() {
    return httpPorts.stream().map(port -> new InetSocketAddress("127.0.0.1", port)).toList();
  }

  public long pid(int node) {
    return processes.get(node).pid();
  }

  public List<Long> pids() {
    return processes.stream().map(Process::pid).toList();
  }

  public int size() {
    return processes.size();
  }

  /** Where node {@code node} writes its GC log (unified logging, {@link GcLog#jvmOption}). */
  public Path gcLog(int node) {
    return dir.resolve("gc-node-" + node + ".log");
  }

  public Path dataDir(int node) {
    return dir.resolve("data").resolve("node-" + node);
  }

  /**
   * Each node's RocksDB info log ({@code LOG} in its database directory, wherever the node keeps it
   * under its data directory); a path that does not exist for a node where none is found.
   */
  public List<Path> rocksDbLogs() throws IOException {
    List<Path> logs = new ArrayList<>();
    for (int i = 0; i < size(); i++) {
      try (var files = Files.walk(dataDir(i), 3)) {
        logs.add(
            files
                .filter(f -> f.getFileName().toString().equals("LOG"))
                .findFirst()
                .orElse(dataDir(i).resolve("LOG")));
      }
    }
    return logs;
  }

  /** A settle pause for this cluster: its nodes' metrics and RocksDB logs. */
  public Settler settler() throws IOException {
    List<URI> metrics = new ArrayList<>();
    for (int i = 0; i < size(); i++) {
      metrics.add(uri(i, "/metrics"));
    }
    return new Settler(metrics, rocksDbLogs());
  }

  public URI uri(int node, String path) {
    return URI.create("http://127.0.0.1:" + httpPorts.get(node) + path);
  }

  /** Heap in use on node {@code node}, in bytes, from its Prometheus metrics. */
  public long heapUsed(int node) throws IOException, InterruptedException {
    String metrics =
        HTTP.send(
                HttpRequest.newBuilder(uri(node, "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    return (long)
        metrics
            .lines()
            .filter(line -> line.startsWith("jvm_memory_used_bytes{area=\"heap\""))
            .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
            .sum();
  }

  private void awaitReady(Duration timeout) throws IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (int i = 0; i < processes.size(); i++) {
      while (!ready(i)) {
        if (!processes.get(i).isAlive()) {
          throw new IOException("node-" + i + " exited with " + processes.get(i).exitValue());
        }
        if (System.nanoTime() > deadline) {
          throw new IOException("node-" + i + " not ready after " + timeout);
        }
        sleep(Duration.ofMillis(200));
      }
    }
  }

  private boolean ready(int node) {
    try {
      return HTTP.send(
                  HttpRequest.newBuilder(uri(node, "/health/ready")).build(),
                  HttpResponse.BodyHandlers.discarding())
              .statusCode()
          == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops every node with SIGTERM, then SIGKILL after 30 s. */
  @Override
  public void close() {
    processes.forEach(Process::destroy);
    for (Process process : processes) {
      try {
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
          process.destroyForcibly().waitFor();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        process.destroyForcibly();
      }
    }
  }
}
