package io.kvorum.node.transport.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import io.kvorum.proto.replica.v1.WriteRequest;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ProtoMappingTest {
  private static final Record RECORD =
      Record.value(Version.of(1_700_000_000_000L, 3), random(1024), 1_700_000_060_000L, 3);

  @Test
  void aRecordSurvivesTheRoundTripThroughBytes() throws InvalidProtocolBufferException {
    WriteRequest parsed = parse(RECORD);

    assertThat(ProtoMapping.fromProto(parsed.getRecord())).isEqualTo(RECORD);
    assertThat(ProtoMapping.key(parsed.getKey()).bytes()).containsExactly(1, 2, 3);
  }

  @Test
  void aReceivedValueIsTakenFromTheParsedMessageWithoutACopy()
      throws InvalidProtocolBufferException {
    ByteString value = parse(RECORD).getRecord().getValue();

    byte[] first = ProtoMapping.array(value);

    assertThat(first).containsExactly(RECORD.value());
    assertThat(ProtoMapping.array(value)).as("the same array again: no copy").isSameAs(first);
    assertThat(first).as("not the sender's array").isNotSameAs(RECORD.value());
  }

  @Test
  void aSliceOrARopeIsCopiedWhole() {
    byte[] bytes = random(100);
    ByteString whole = ProtoMapping.bytes(bytes);

    assertThat(ProtoMapping.array(whole.substring(10, 60)))
        .containsExactly(whole.substring(10, 60).toByteArray());
    assertThat(ProtoMapping.array(whole.concat(whole)))
        .hasSize(200)
        .startsWith(bytes)
        .endsWith(bytes);
    assertThat(ProtoMapping.array(ByteString.EMPTY)).isEmpty();
  }

  private static WriteRequest parse(Record record) throws InvalidProtocolBufferException {
    byte[] wire =
        WriteRequest.newBuilder()
            .setKey(ProtoMapping.bytes(new byte[] {1, 2, 3}))
            .setRecord(ProtoMapping.toProto(record))
            .build()
            .toByteArray();
    return WriteRequest.parseFrom(wire);
  }

  private static byte[] random(int size) {
    byte[] bytes = new byte[size];
    new Random(size).nextBytes(bytes);
    return bytes;
  }
}
