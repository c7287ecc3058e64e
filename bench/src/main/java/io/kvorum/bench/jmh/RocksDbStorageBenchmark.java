package io.kvorum.bench.jmh;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import io.kvorum.node.storage.rocksdb.RocksDbSettings;
import io.kvorum.node.storage.rocksdb.RocksDbStorageEngine;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Random;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@link RocksDbStorageEngine} put and get of 1 KiB values through the engine's own executor, as
 * the node calls it (the thread hop is part of the cost). Keys are drawn uniformly from a preloaded
 * key space, so puts overwrite and gets hit.
 *
 * <pre>
 * java -jar bench/target/benchmarks.jar RocksDbStorageBenchmark -t 4
 * java -jar bench/target/benchmarks.jar RocksDbStorageBenchmark.get -p writesPerKey=1,4
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode({Mode.Throughput, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 5)
@Measurement(iterations = 5, time = 5)
@Fork(
    value = 1,
    jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xmx1g"})
public class RocksDbStorageBenchmark {
  @Param({"100000"})
  int keys;

  @Param({"1024"})
  int valueSize;

  @Param({"false"})
  boolean syncWrites;

  /**
   * How often each key is written before measuring: above 1, reads merge several stored versions
   * (blind writes leave them until compaction), as on a node that has taken overwrites.
   */
  @Param({"1"})
  int writesPerKey;

  private Path directory;
  private ThreadPoolExecutor executor;
  private RocksDbStorageEngine engine;
  private Key[] keySpace;
  private byte[] value;
  private final AtomicLong versions = new AtomicLong(System.currentTimeMillis() << 16);

  @Setup(Level.Trial)
  public void open() throws IOException {
    directory = Files.createTempDirectory("kvorum-jmh");
    int threads = Math.max(4, 2 * Runtime.getRuntime().availableProcessors());
    executor =
        new ThreadPoolExecutor(
            threads, threads, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(4096));
    engine =
        RocksDbStorageEngine.open(
            directory, new RocksDbSettings(syncWrites, 128L << 20, 64L << 20, 0), executor);
    value = new byte[valueSize];
    new Random(1).nextBytes(value);
    keySpace = new Key[keys];
    for (int i = 0; i < keys; i++) {
      keySpace[i] = Key.of(String.format("key-%08d", i).getBytes(StandardCharsets.UTF_8));
    }
    for (int round = 0; round < writesPerKey; round++) {
      for (Key key : keySpace) {
        engine.put(key, Record.value(new Version(versions.incrementAndGet()), value)).join();
      }
    }
  }

  @TearDown(Level.Trial)
  public void close() throws IOException {
    engine.close();
    executor.shutdownNow();
    try (Stream<Path> files = Files.walk(directory)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  private Key anyKey() {
    return keySpace[ThreadLocalRandom.current().nextInt(keys)];
  }

  @Benchmark
  public void put() {
    engine.put(anyKey(), Record.value(new Version(versions.incrementAndGet()), value)).join();
  }

  @Benchmark
  public Object get() {
    return engine.get(anyKey()).join();
  }
}
