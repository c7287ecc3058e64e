package io.kvorum.bench.jmh;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnsafeByteOperations;
import io.kvorum.proto.replica.v1.ReadResponse;
import io.kvorum.proto.replica.v1.Record;
import io.kvorum.proto.replica.v1.ReplicaRequest;
import io.kvorum.proto.replica.v1.ReplicaRequestBatch;
import io.kvorum.proto.replica.v1.ReplicaResponse;
import io.kvorum.proto.replica.v1.ReplicaResponseBatch;
import io.kvorum.proto.replica.v1.WriteRequest;
import java.nio.charset.StandardCharsets;
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
 * The messages of the replica stream with 1 KiB values, as one batch of {@code batchSize} replica
 * writes and one batch of as many read answers: building and serializing them (the sender) and
 * parsing them (the receiver). Times are per batch; divide by {@code batchSize} for the cost of one
 * request in a batch of that size (1: the stream unloaded, every request a message of its own; 16
 * and 64: under load, what accumulates while the previous batch is written).
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

  @Param({"1", "16", "64"})
  int batchSize;

  private byte[] value;
  private byte[] key;
  private byte[] writeBytes;
  private byte[] readAnswerBytes;
  private long id;

  @Setup
  public void setUp() {
    value = new byte[valueSize];
    new SplittableRandom(1).nextBytes(value);
    key = "k0000012345".getBytes(StandardCharsets.US_ASCII);
    writeBytes = writeBatch().toByteArray();
    readAnswerBytes = readAnswerBatch().toByteArray();
  }

  @Benchmark
  public byte[] encodeWriteBatch() {
    return writeBatch().toByteArray();
  }

  @Benchmark
  public ReplicaRequestBatch decodeWriteBatch() throws InvalidProtocolBufferException {
    return ReplicaRequestBatch.parseFrom(writeBytes);
  }

  @Benchmark
  public byte[] encodeReadAnswerBatch() {
    return readAnswerBatch().toByteArray();
  }

  @Benchmark
  public ReplicaResponseBatch decodeReadAnswerBatch() throws InvalidProtocolBufferException {
    return ReplicaResponseBatch.parseFrom(readAnswerBytes);
  }

  /** As the transport builds it: keys and values wrapped, not copied. */
  private ReplicaRequestBatch writeBatch() {
    ReplicaRequestBatch.Builder batch =
        ReplicaRequestBatch.newBuilder().setHlc(System.currentTimeMillis() << 16);
    for (int i = 0; i < batchSize; i++) {
      batch.addRequests(
          ReplicaRequest.newBuilder()
              .setRequestId(++id)
              .setWrite(WriteRequest.newBuilder().setKey(wrap(key)).setRecord(record())));
    }
    return batch.build();
  }

  private ReplicaResponseBatch readAnswerBatch() {
    ReplicaResponseBatch.Builder batch =
        ReplicaResponseBatch.newBuilder().setHlc(System.currentTimeMillis() << 16);
    for (int i = 0; i < batchSize; i++) {
      batch.addResponses(
          ReplicaResponse.newBuilder()
              .setRequestId(++id)
              .setRead(ReadResponse.newBuilder().setRecord(record())));
    }
    return batch.build();
  }

  private Record record() {
    return Record.newBuilder()
        .setVersion(System.currentTimeMillis() << 16)
        .setValue(wrap(value))
        .setReplicas(3)
        .build();
  }

  private static ByteString wrap(byte[] bytes) {
    return UnsafeByteOperations.unsafeWrap(bytes);
  }
}
