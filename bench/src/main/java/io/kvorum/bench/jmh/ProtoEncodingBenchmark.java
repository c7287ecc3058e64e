package io.kvorum.bench.jmh;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.kvorum.proto.replica.v1.ReadResponse;
import io.kvorum.proto.replica.v1.Record;
import io.kvorum.proto.replica.v1.ReplicaRequest;
import io.kvorum.proto.replica.v1.ReplicaResponse;
import io.kvorum.proto.replica.v1.WriteRequest;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The inter-node messages of one replica write and one replica read answer with a 1 KiB value:
 * building and serializing them (the sender) and parsing them (the receiver).
 *
 * <pre>
 * java -jar bench/target/benchmarks.jar ProtoEncodingBenchmark
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ProtoEncodingBenchmark {
  @Param({"1024"})
  int valueSize;

  private byte[] value;
  private byte[] key;
  private byte[] writeBytes;
  private byte[] readAnswerBytes;
  private long id;

  @Setup
  public void setUp() {
    value = new byte[valueSize];
    new SplittableRandom(1).nextBytes(value);
    key = "k0000012345".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    writeBytes = writeRequest().toByteArray();
    readAnswerBytes = readAnswer().toByteArray();
  }

  @Benchmark
  public byte[] encodeWrite() {
    return writeRequest().toByteArray();
  }

  @Benchmark
  public ReplicaRequest decodeWrite() throws InvalidProtocolBufferException {
    return ReplicaRequest.parseFrom(writeBytes);
  }

  @Benchmark
  public byte[] encodeReadAnswer() {
    return readAnswer().toByteArray();
  }

  @Benchmark
  public ReplicaResponse decodeReadAnswer() throws InvalidProtocolBufferException {
    return ReplicaResponse.parseFrom(readAnswerBytes);
  }

  private ReplicaRequest writeRequest() {
    return ReplicaRequest.newBuilder()
        .setRequestId(++id)
        .setHlc(System.currentTimeMillis() << 16)
        .setWrite(WriteRequest.newBuilder().setKey(ByteString.copyFrom(key)).setRecord(record()))
        .build();
  }

  private ReplicaResponse readAnswer() {
    return ReplicaResponse.newBuilder()
        .setRequestId(++id)
        .setHlc(System.currentTimeMillis() << 16)
        .setRead(ReadResponse.newBuilder().setRecord(record()))
        .build();
  }

  private Record record() {
    return Record.newBuilder()
        .setVersion(System.currentTimeMillis() << 16)
        .setValue(ByteString.copyFrom(value))
        .build();
  }
}
