package io.kvorum.node.testing;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A real S3-compatible server for the backup tests: SeaweedFS ({@code weed mini}, built by {@code
 * node/src/test/seaweedfs/install.sh}), every port of its own on 127.0.0.1, with one identity
 * ({@link #ACCESS_KEY}, {@link #SECRET_KEY}) and one bucket ({@link #BUCKET}). Found at {@code
 * KVORUM_WEED}, else where the script puts it; without it the test is skipped, and fails in CI.
 */
public final class SeaweedFs implements AutoCloseable {
  public static final String ACCESS_KEY = "kvorum-test";
  public static final String SECRET_KEY = "kvorum-test-secret";
  public static final String BUCKET = "kvorum-backups";

  private final Process process;
  private final int s3Port;

  private SeaweedFs(Process process, int s3Port) {
    this.process = process;
    this.s3Port = s3Port;
  }

  /** Starts a server with its data and log under {@code dir}; waits until S3 answers. */
  public static SeaweedFs start(Path dir) throws IOException {
    Path weed = binary();
    Files.createDirectories(dir.resolve("data"));
    Path config = dir.resolve("s3.json");
    Files.writeString(
        config,
        """
        {"identities":[{"name":"kvorum","credentials":[{"accessKey":"%s","secretKey":"%s"}],
          "actions":["Admin","Read","Write","List","Tagging"]}]}
        """
            .formatted(ACCESS_KEY, SECRET_KEY),
        StandardCharsets.UTF_8);
    int s3 = NodeProcess.freePort();
    List<String> command = new ArrayList<>(List.of(weed.toString(), "mini"));
    command.addAll(
        List.of(
            "-dir=" + dir.resolve("data"),
            "-ip=127.0.0.1",
            "-ip.bind=127.0.0.1",
            "-s3.config=" + config,
            "-bucket=" + BUCKET,
            "-webdav=false",
            "-admin.ui=false",
            "-admin.port.legacy=0",
            "-s3.port=" + s3));
    for (String port :
        List.of(
            "master.port",
            "master.port.grpc",
            "volume.port",
            "volume.port.grpc",
            "filer.port",
            "filer.port.grpc",
            "s3.port.grpc",
            "s3.port.iceberg",
            "s3.port.lance",
            "admin.port",
            "admin.port.grpc")) {
      command.add("-" + port + "=" + NodeProcess.freePort());
    }
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("weed.log").toFile())
            .start();
    SeaweedFs server = new SeaweedFs(process, s3);
    try (S3Client client = server.client()) {
      Awaitility.await("SeaweedFS's S3 gateway on port " + s3 + " with bucket " + BUCKET)
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(500))
          .failFast("weed exited (see " + dir.resolve("weed.log") + ")", () -> !process.isAlive())
          .ignoreExceptions()
          .until(() -> client.headBucket(b -> b.bucket(BUCKET)).sdkHttpResponse().isSuccessful());
    }
    return server;
  }

  /** A client of this server with its identity, path-style. */
  public S3Client client() {
    return S3Client.builder()
        .endpointOverride(URI.create(endpoint()))
        .forcePathStyle(true)
        .region(Region.US_EAST_1)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
        .build();
  }

  /** The S3 API's address. */
  public String endpoint() {
    return "http://127.0.0.1:" + s3Port;
  }

  private static Path binary() {
    String tools =
        Optional.ofNullable(System.getenv("KVORUM_TOOLS"))
            .orElse(System.getProperty("user.home") + "/.cache/kvorum-tools");
    Optional<Path> found =
        Stream.concat(
                Stream.ofNullable(System.getenv("KVORUM_WEED")).map(Path::of),
                installed(Path.of(tools)))
            .filter(Files::isExecutable)
            .findFirst();
    if (found.isEmpty()) {
      String reason = "no SeaweedFS: run node/src/test/seaweedfs/install.sh, or set KVORUM_WEED";
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        Assertions.fail("CI=true but " + reason + ": backups must be checked in CI");
      }
      Assumptions.abort(reason);
    }
    return found.get();
  }

  private static Stream<Path> installed(Path tools) {
    try (Stream<Path> dirs = Files.list(tools)) {
      return dirs
          .filter(d -> d.getFileName().toString().startsWith("seaweedfs-"))
          .map(d -> d.resolve("weed"))
          .toList()
          .stream();
    } catch (IOException e) {
      return Stream.empty();
    }
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
  }
}
