package io.kvorum.bench.jmh;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.Quorum;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The gateway's parsing of an entity request's query string into a key and a quorum, as every
 * request does.
 *
 * <p>The parsers ({@code QueryParameters}, {@code RequestParameters}) are package-private in {@code
 * io.kvorum.node.gateway}; the benchmark reaches them through method handles from a private lookup
 * in that package (the class path's unnamed module opens every package), held in {@code static
 * final} fields so that the JIT inlines them as it would direct calls.
 *
 * <pre>
 * java -jar bench/target/benchmarks.jar RequestParsingBenchmark
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class RequestParsingBenchmark {
  /** {@code QueryParameters.parse(String)}, returning the parsed query as an Object. */
  private static final MethodHandle PARSE;

  /** {@code new RequestParameters(int maxKeyBytes)}, as an Object. */
  private static final MethodHandle PARAMETERS;

  /** {@code RequestParameters.key(QueryParameters, String name)}. */
  private static final MethodHandle KEY;

  /** {@code RequestParameters.quorum(QueryParameters, int clusterSize)}. */
  private static final MethodHandle QUORUM;

  static {
    try {
      Class<?> query = Class.forName("io.kvorum.node.gateway.QueryParameters");
      Class<?> request = Class.forName("io.kvorum.node.gateway.RequestParameters");
      MethodHandles.Lookup gateway = MethodHandles.privateLookupIn(query, MethodHandles.lookup());
      PARSE =
          gateway
              .findStatic(query, "parse", MethodType.methodType(query, String.class))
              .asType(MethodType.methodType(Object.class, String.class));
      PARAMETERS =
          gateway
              .findConstructor(request, MethodType.methodType(void.class, int.class))
              .asType(MethodType.methodType(Object.class, int.class));
      KEY =
          gateway
              .findVirtual(request, "key", MethodType.methodType(Key.class, query, String.class))
              .asType(MethodType.methodType(Key.class, Object.class, Object.class, String.class));
      QUORUM =
          gateway
              .findVirtual(request, "quorum", MethodType.methodType(Quorum.class, query, int.class))
              .asType(MethodType.methodType(Quorum.class, Object.class, Object.class, int.class));
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final Object parameters = newParameters(1024);

  @Benchmark
  public void plainKey(Blackhole sink) throws Throwable {
    parse("id=k0000012345&ack=2&from=3", sink);
  }

  @Benchmark
  public void percentEncodedKey(Blackhole sink) throws Throwable {
    parse("id=%D0%BA%D0%BB%D1%8E%D1%87%20%2F%20key&replicas=2/3", sink);
  }

  private void parse(String query, Blackhole sink) throws Throwable {
    Object parsed = PARSE.invokeExact(query);
    Key key = (Key) KEY.invokeExact(parameters, parsed, "id");
    Quorum quorum = (Quorum) QUORUM.invokeExact(parameters, parsed, 3);
    sink.consume(key);
    sink.consume(quorum);
  }

  private static Object newParameters(int maxKeyBytes) {
    try {
      return PARAMETERS.invokeExact(maxKeyBytes);
    } catch (Throwable e) {
      throw new IllegalStateException(e);
    }
  }
}
