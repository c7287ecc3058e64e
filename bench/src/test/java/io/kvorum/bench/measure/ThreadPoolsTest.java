package io.kvorum.bench.measure;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ThreadPoolsTest {
  @Test
  void theTrailingNumberThatTellsAPoolsThreadsApartGoes() {
    assertThat(ThreadPools.pool("kvorum-io-3")).isEqualTo("kvorum-io");
    assertThat(ThreadPools.pool("kvorum-io-12")).isEqualTo("kvorum-io");
    assertThat(ThreadPools.pool("pool-3-thread-1")).isEqualTo("pool-3-thread");
    assertThat(ThreadPools.pool("Thread-7")).isEqualTo("Thread");
    assertThat(ThreadPools.pool("worker#2")).isEqualTo("worker");
  }

  @Test
  void aNameCutAfterItsSeparatorLosesTheSeparator() {
    assertThat(ThreadPools.pool("kvorum-storage-")).isEqualTo("kvorum-storage");
    assertThat(ThreadPools.pool("kvorum-storage-1")).isEqualTo("kvorum-storage");
  }

  @Test
  void namesWithoutANumberStayAsTheyAre() {
    assertThat(ThreadPools.pool("rocksdb:high")).isEqualTo("rocksdb:high");
    assertThat(ThreadPools.pool("grpc-default-ex")).isEqualTo("grpc-default-ex");
    assertThat(ThreadPools.pool("VM Thread")).isEqualTo("VM Thread");
    assertThat(ThreadPools.pool("java")).isEqualTo("java");
  }

  @Test
  void theJvmsCompilerAndCollectorThreadsGetShortNames() {
    assertThat(ThreadPools.pool("C2 CompilerThre")).isEqualTo("C2");
    assertThat(ThreadPools.pool("C1 CompilerThre")).isEqualTo("C1");
    assertThat(ThreadPools.pool("GC Thread#0")).isEqualTo("GC");
    assertThat(ThreadPools.pool("G1 Conc#0")).isEqualTo("GC");
    assertThat(ThreadPools.pool("G1 Refine#1")).isEqualTo("GC");
    assertThat(ThreadPools.jit("C2")).isTrue();
    assertThat(ThreadPools.jit("GC")).isFalse();
  }

  @Test
  void aNameThatIsOnlyANumberIsKept() {
    assertThat(ThreadPools.pool("42")).isEqualTo("42");
    assertThat(ThreadPools.pool(" ")).isEqualTo("?");
    assertThat(ThreadPools.pool("--")).isEqualTo("--");
  }
}
