package io.kvorum.bench.wrk2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvorum.bench.load.PhaseResult;
import io.kvorum.bench.load.Workload;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class Wrk2GeneratorTest {
  private static final Workload WORKLOAD = new Workload(2000, 1024, 2, 3, 90, 100);
  private static final List<InetSocketAddress> NODES =
      List.of(
          InetSocketAddress.createUnresolved("127.0.0.1", 18080),
          InetSocketAddress.createUnresolved("127.0.0.1", 18081),
          InetSocketAddress.createUnresolved("127.0.0.1", 18082));

  /** A stand-in for wrk2 that notes its arguments and prints a recorded wrk2 output. */
  private static Path fakeWrk2(Path dir) throws IOException {
    Path output = dir.resolve("output.txt");
    try (InputStream in = Wrk2GeneratorTest.class.getResourceAsStream("put-500.txt")) {
      Files.write(output, in.readAllBytes());
    }
    Path wrk2 = dir.resolve("wrk2");
    Files.writeString(
        wrk2, "#!/bin/sh\necho \"$@\" >> " + dir.resolve("calls.txt") + "\ncat " + output + "\n");
    Files.setPosixFilePermissions(wrk2, PosixFilePermissions.fromString("rwxr-xr-x"));
    return wrk2;
  }

  @Test
  void oneProcessPerNodeAtAThirdOfTheRateAndConnectionsTheirResultsMerged(@TempDir Path dir)
      throws IOException {
    Path wrk2 = fakeWrk2(dir);
    try (Wrk2Generator generator =
        Wrk2Generator.create(wrk2, dir.resolve("results"), WORKLOAD, NODES, 128)) {
      PhaseResult result = generator.atRate("put@1000", "put", 1000, Duration.ofSeconds(5));

      List<String> calls = Files.readAllLines(dir.resolve("calls.txt"));
      assertThat(calls).hasSize(3);
      // 1000/s and 128 connections over three: 334+333+333 and 43+43+42; 5 s plus calibration.
      assertThat(calls)
          .anySatisfy(c -> assertThat(c).contains("-c43 ", "-R334 ", "http://127.0.0.1:18080"))
          .anySatisfy(c -> assertThat(c).contains("-c43 ", "-R333 ", "http://127.0.0.1:18081"))
          .anySatisfy(c -> assertThat(c).contains("-c42 ", "-R333 ", "http://127.0.0.1:18082"))
          .allSatisfy(
              c ->
                  assertThat(c)
                      .contains("-t1 ", "-d16s ", "--latency", "kvorum.lua")
                      .contains("-- put 2000 1024 2 3 90 100 "));
      assertThat(result.answered()).isEqualTo(3 * 1497);
      assertThat(result.latency().getTotalCount()).isEqualTo(3 * 1496);
      assertThat(result.sendWindow()).isEqualTo(Duration.ofSeconds(16));
      assertThat(dir.resolve("results/wrk2/kvorum.lua")).exists();
      try (Stream<Path> files = Files.list(dir.resolve("results/wrk2"))) {
        assertThat(files.map(f -> f.getFileName().toString()))
            .contains("put_1000-node0.txt", "put_1000-node2.txt");
      }
    }
  }

  @Test
  void aFlatOutRunAsksForMoreThanAnyServerAnswers(@TempDir Path dir) throws IOException {
    Path wrk2 = fakeWrk2(dir);
    try (Wrk2Generator generator =
        Wrk2Generator.create(wrk2, dir.resolve("results"), WORKLOAD, NODES, 128)) {
      PhaseResult result = generator.flatOut("saturation", "put", 64, Duration.ofSeconds(20));

      assertThat(Files.readAllLines(dir.resolve("calls.txt")))
          .allSatisfy(c -> assertThat(c).contains("-d20s ", "-R3333333", "-c2"));
      assertThat(result.requestedRate()).isZero();
    }
  }

  @Test
  void aFailingWrk2SaysWhatItPrinted(@TempDir Path dir) throws IOException {
    Path wrk2 = dir.resolve("wrk2");
    Files.writeString(wrk2, "#!/bin/sh\necho 'unable to connect'\nexit 1\n");
    Files.setPosixFilePermissions(wrk2, PosixFilePermissions.fromString("rwxr-xr-x"));
    try (Wrk2Generator generator =
        Wrk2Generator.create(wrk2, dir.resolve("results"), WORKLOAD, NODES, 6)) {
      assertThatThrownBy(() -> generator.atRate("get@10", "get", 10, Duration.ofSeconds(1)))
          .hasMessageContaining("unable to connect");
    }
  }

  @Test
  void wrk2IsFoundByWrk2OrOnThePath(@TempDir Path dir) throws IOException {
    Path wrk2 = fakeWrk2(dir);

    assertThat(Wrk2Generator.locate(Map.of("WRK2", wrk2.toString()))).isEqualTo(wrk2);
    assertThat(Wrk2Generator.locate(Map.of("PATH", "/nonexistent:" + dir))).isEqualTo(wrk2);
    assertThatThrownBy(() -> Wrk2Generator.locate(Map.of("PATH", "/nonexistent")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("github.com/giltene/wrk2");
    assertThatThrownBy(() -> Wrk2Generator.locate(Map.of("WRK2", dir.resolve("none").toString())))
        .hasMessageContaining("not an executable");
  }

  @Test
  void theScriptMakesTheRequestsOfEveryPhase() throws IOException {
    try (InputStream in = Wrk2Generator.class.getResourceAsStream("kvorum.lua")) {
      String lua = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      assertThat(lua)
          .contains("put = put, get = get, mixed = mixed, range = range, empty = empty")
          .contains("\"/v0/entity?id=\"", "\"k%010d\"", "\"&ack=\"");
    }
  }
}
