package io.kvorum.node.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LocalClusterCommandTest {
  @Test
  void nodesRunOnTheLaunchersJavaWithItsFlagsNotOnTheJavaOnThePath() {
    List<String> command = LocalClusterCommand.javaCommand();

    assertThat(command.getFirst())
        .isEqualTo(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    List<String> flags =
        ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
            .filter(flag -> !flag.startsWith("-javaagent:") && !flag.startsWith("-agent"))
            .toList();
    assertThat(flags).contains("--enable-native-access=ALL-UNNAMED"); // the test JVM's argLine
    assertThat(command.subList(1, 1 + flags.size())).isEqualTo(flags);
    assertThat(command).containsOnlyOnce("--enable-native-access=ALL-UNNAMED");
    assertThat(command.getLast()).isEqualTo(KvorumNode.class.getName());
  }

  @Test
  void nodesGetNeitherTheFlagsBinKvorumGaveTheLauncherAloneNorAnAgent() {
    List<String> launcher =
        List.of(
            "--enable-native-access=ALL-UNNAMED",
            "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC",
            "-D" + LocalClusterCommand.LAUNCHER_FLAGS + "=-XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
            "-agentpath:/opt/profiler.so=start",
            // JAVA_OPTS after them: the user's own, for the nodes too
            "-XX:+UseSerialGC",
            "-Xmx1g");

    assertThat(LocalClusterCommand.nodeFlags(launcher))
        .containsExactly("--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", "-Xmx1g");
    assertThat(LocalClusterCommand.nodeFlags(List.of("-XX:TieredStopAtLevel=1", "-Xmx1g")))
        .containsExactly("-XX:TieredStopAtLevel=1", "-Xmx1g");
  }

  @Test
  void nodesSharingTheMachineShareItsCoresUnlessTheFlagsChoose() {
    assertThat(LocalClusterCommand.loopsFlag(List.of(), 3, 2)).containsExactly("--io-threads", "1");
    assertThat(LocalClusterCommand.loopsFlag(List.of(), 3, 8)).containsExactly("--io-threads", "2");
    assertThat(LocalClusterCommand.loopsFlag(List.of(), 1, 4)).containsExactly("--io-threads", "4");
    assertThat(LocalClusterCommand.loopsFlag(List.of("--io-threads", "3"), 3, 2)).isEmpty();
    assertThat(LocalClusterCommand.loopsFlag(List.of("--io-threads=3"), 3, 2)).isEmpty();
  }

  @Test
  void ctrlCStopsNodesThatIgnoreItWithinOneDeadlineForAll() throws Exception {
    List<ProcessHandle> stubborn = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      stubborn.add(
          new ProcessBuilder("sh", "-c", "trap '' TERM; while true; do sleep 1; done")
              .start()
              .toHandle());
    }
    try {
      long start = System.nanoTime();
      LocalClusterCommand.stopAll(stubborn, Duration.ofSeconds(2));

      for (ProcessHandle node : stubborn) {
        node.onExit().get(5, TimeUnit.SECONDS);
      }
      // One deadline for the three, not two seconds each.
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    } finally {
      stubborn.forEach(ProcessHandle::destroyForcibly);
    }
  }
}
