// What a batch saves: 100 keys written and read as one POST /v0/batch against the same 100 keys as
// 100 single requests, sent one after another on one connection (serial) or all at once
// (parallel, one connection each, kept alive). Three node processes on 127.0.0.1 (HTTP 18080..,
// gRPC 19090.., the runner's ports), 1 KiB values over 10,000 keys, the request's ack/from the
// nodes' defaults (2 of 3). Each mode runs ROUNDS rounds of 100 keys, in blocks that take turns
// (batch, serial, parallel, again), after a warm-up of every mode; it prints, per operation and
// mode, the nodes' CPU (utime + stime from /proc) per key, this client's CPU per key, and the
// wall time of a round of 100 keys (p50, p99). docs/performance.md ("Batches") uses it. Run from
// the repository root after building the node's jar (arguments: rounds measured per mode, warm-up
// rounds per mode, blocks):
//
//   J=node/target/kvorum-node.jar; JAVA=$(bin/find-java)/bin/java
//   flock /tmp/machine.lock $JAVA -Xmx512m -cp $J bench/tools/batch/BatchCost.java 600 300 3

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;

public class BatchCost {
  static final int NODES = 3;
  static final int ITEMS = 100;
  static final int KEYS = 10_000;
  static final String[] MODES = {"batch", "serial", "parallel"};
  static final byte[] VALUE = new byte[1024];
  static final HttpClient HTTP =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  static final Random RANDOM = new Random(363);
  static final Pattern FAILED_ITEM = Pattern.compile("\"status\":\\s*(?!20[01]\\b)\\d+");

  public static void main(String[] args) throws Exception {
    int rounds = Integer.parseInt(args[0]);
    int warmUp = Integer.parseInt(args[1]);
    int blocks = Integer.parseInt(args[2]);
    new Random(1).nextBytes(VALUE);
    Path dir = Files.createTempDirectory("batch-cost");
    List<Process> nodes = start(dir);
    try {
      // Every key once, so that every get finds its key.
      for (int first = 0; first < KEYS; first += ITEMS) {
        List<String> keys = new ArrayList<>();
        for (int k = first; k < first + ITEMS; k++) {
          keys.add(String.format("k%05d", k));
        }
        expect(HTTP.send(batch(0, "put", keys), body()), 200);
      }
      for (String op : new String[] {"put", "get"}) {
        Map<String, long[]> cpu = new LinkedHashMap<>();
        Map<String, List<Long>> times = new LinkedHashMap<>();
        for (String mode : MODES) {
          round(op, mode, warmUp, null);
          cpu.put(mode, new long[2]);
          times.put(mode, new ArrayList<>());
        }
        for (int block = 0; block < blocks; block++) {
          for (String mode : MODES) {
            long nodesBefore = ticks(nodes);
            long selfBefore = selfTicks();
            round(op, mode, rounds / blocks, times.get(mode));
            cpu.get(mode)[0] += ticks(nodes) - nodesBefore;
            cpu.get(mode)[1] += selfTicks() - selfBefore;
          }
        }
        for (String mode : MODES) {
          long[] sorted = times.get(mode).stream().mapToLong(Long::longValue).sorted().toArray();
          double keys = (double) sorted.length * ITEMS;
          System.out.printf(
              "%s %-8s keys %,d  nodes %.1f us/key  client %.1f us/key  round of %d p50 %.2f ms"
                  + " p99 %.2f ms%n",
              op,
              mode,
              (long) keys,
              cpu.get(mode)[0] * 1e6 / tickHz() / keys,
              cpu.get(mode)[1] * 1e6 / tickHz() / keys,
              ITEMS,
              sorted[sorted.length / 2] / 1e6,
              sorted[(int) (sorted.length * 0.99)] / 1e6);
        }
      }
    } finally {
      nodes.forEach(Process::destroy);
      for (Process node : nodes) {
        node.waitFor();
      }
    }
  }

  /** {@code count} rounds of 100 random keys in {@code mode}, each round's wall time recorded. */
  static void round(String op, String mode, int count, List<Long> times) throws Exception {
    for (int r = 0; r < count; r++) {
      int node = r % NODES;
      List<String> keys = new ArrayList<>();
      while (keys.size() < ITEMS) {
        String key = String.format("k%05d", RANDOM.nextInt(KEYS));
        if (!keys.contains(key)) {
          keys.add(key);
        }
      }
      long start = System.nanoTime();
      switch (mode) {
        case "batch" -> expect(HTTP.send(batch(node, op, keys), body()), 200);
        case "serial" -> {
          for (String key : keys) {
            expect(HTTP.send(single(node, op, key), body()), op.equals("put") ? 201 : 200);
          }
        }
        default -> {
          List<CompletableFuture<HttpResponse<byte[]>>> sent = new ArrayList<>();
          for (String key : keys) {
            sent.add(HTTP.sendAsync(single(node, op, key), body()));
          }
          for (CompletableFuture<HttpResponse<byte[]>> answer : sent) {
            expect(answer.join(), op.equals("put") ? 201 : 200);
          }
        }
      }
      if (times != null) {
        times.add(System.nanoTime() - start);
      }
    }
  }

  static HttpRequest single(int node, String op, String key) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(base(node) + "/v0/entity?id=" + key));
    return (op.equals("put")
            ? request.PUT(HttpRequest.BodyPublishers.ofByteArray(VALUE))
            : request.GET())
        .build();
  }

  static HttpRequest batch(int node, String op, List<String> keys) {
    StringBuilder body = new StringBuilder("{\"items\":[");
    String value = Base64.getEncoder().encodeToString(VALUE);
    for (int i = 0; i < keys.size(); i++) {
      body.append(i == 0 ? "" : ",").append("{\"op\":\"").append(op).append("\",\"id\":\"");
      body.append(keys.get(i)).append('"');
      if (op.equals("put")) {
        body.append(",\"value\":\"").append(value).append('"');
      }
      body.append('}');
    }
    body.append("]}");
    return HttpRequest.newBuilder(URI.create(base(node) + "/v0/batch"))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
        .build();
  }

  static void expect(HttpResponse<byte[]> response, int status) {
    if (response.statusCode() != status) {
      throw new IllegalStateException(
          response.statusCode() + ": " + new String(response.body(), StandardCharsets.UTF_8));
    }
    if (response.uri().getPath().equals("/v0/batch")) {
      String body = new String(response.body(), StandardCharsets.UTF_8);
      if (FAILED_ITEM.matcher(body).find()) {
        throw new IllegalStateException("a batch item failed: " + body);
      }
    }
  }

  static HttpResponse.BodyHandler<byte[]> body() {
    return HttpResponse.BodyHandlers.ofByteArray();
  }

  static String base(int node) {
    return "http://127.0.0.1:" + (18080 + node);
  }

  static List<Process> start(Path dir) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String jar = jarPath();
    List<String> peers = new ArrayList<>();
    for (int i = 0; i < NODES; i++) {
      peers.add("node-" + i + "=127.0.0.1:" + (19090 + i));
    }
    List<Process> nodes = new ArrayList<>();
    for (int i = 0; i < NODES; i++) {
      nodes.add(
          new ProcessBuilder(
                  java, "-Xms1g", "-Xmx1g", "-XX:+UseG1GC", "--enable-native-access=ALL-UNNAMED",
                  "-jar", jar,
                  "--node-id", "node-" + i,
                  "--http-host", "127.0.0.1",
                  "--http-port", String.valueOf(18080 + i),
                  "--grpc-port", String.valueOf(19090 + i),
                  "--data-dir", dir.resolve("node-" + i).toString(),
                  "--peers", String.join(",", peers))
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("node-" + i + ".log").toFile())
              .start());
    }
    for (int i = 0; i < NODES; i++) {
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (true) {
        try {
          if (HTTP.send(HttpRequest.newBuilder(URI.create(base(i) + "/health/ready")).build(), body())
                  .statusCode()
              == 200) {
            break;
          }
        } catch (IOException e) {
          // not listening yet
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("node-" + i + " not ready; see " + dir);
        }
        Thread.sleep(200);
      }
    }
    return nodes;
  }

  static String jarPath() {
    return Arrays.stream(System.getProperty("java.class.path").split(":"))
        .filter(entry -> entry.endsWith("kvorum-node.jar"))
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("run with -cp .../kvorum-node.jar"));
  }

  static long ticks(List<Process> nodes) throws IOException {
    long sum = 0;
    for (Process node : nodes) {
      sum += ticks(node.pid());
    }
    return sum;
  }

  static long selfTicks() throws IOException {
    return ticks(ProcessHandle.current().pid());
  }

  /** utime + stime of a process, fields 14 and 15 of /proc/PID/stat, in clock ticks. */
  static long ticks(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
  }

  static long tickHz() {
    return 100; // USER_HZ on Linux
  }
}
