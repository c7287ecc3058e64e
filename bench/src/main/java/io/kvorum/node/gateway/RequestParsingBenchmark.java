package io.kvorum.node.gateway;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.Quorum;
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
 * request does. In the gateway's package (its parsers are package-private); lives in the bench
 * module only.
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
  private final RequestParameters parameters = new RequestParameters(1024);

  @Benchmark
  public void plainKey(Blackhole sink) {
    parse("id=k0000012345&ack=2&from=3", sink);
  }

  @Benchmark
  public void percentEncodedKey(Blackhole sink) {
    parse("id=%D0%BA%D0%BB%D1%8E%D1%87%20%2F%20key&replicas=2/3", sink);
  }

  private void parse(String query, Blackhole sink) {
    QueryParameters parsed = QueryParameters.parse(query);
    Key key = parameters.key(parsed, "id");
    Quorum quorum = parameters.quorum(parsed, 3);
    sink.consume(key);
    sink.consume(quorum);
  }
}
