package io.kvorum.node.transport.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

class GrpcEventLoopsTest {
  private static long grpcThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().startsWith("kvorum-grpc"))
        .count();
  }

  @Test
  void nodesOfOneProcessShareTheLoopsAndTheLastOneToLeaveStopsThem() {
    GrpcEventLoops first = GrpcEventLoops.acquire(1);
    GrpcEventLoops second = GrpcEventLoops.acquire(4);
    assertThat(second).isSameAs(first);

    first.release();
    assertThat(GrpcEventLoops.acquire(1)).isSameAs(second);
    second.release();
    second.release();

    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> grpcThreads() == 0);
    GrpcEventLoops fresh = GrpcEventLoops.acquire(1);
    try {
      assertThat(fresh).isNotSameAs(first);
    } finally {
      fresh.release();
    }
  }
}
