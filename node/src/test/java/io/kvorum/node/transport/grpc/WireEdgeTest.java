package io.kvorum.node.transport.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Metadata;
import io.grpc.Status;
import io.kvorum.node.core.ClockOffsetException;
import io.kvorum.node.core.FailureKind;
import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.KvorumException;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.NotEnoughReplicasException;
import io.kvorum.node.core.OverloadedException;
import io.kvorum.node.core.PeerUnavailableException;
import io.kvorum.node.core.StorageException;
import io.kvorum.node.core.UnavailableException;
import io.kvorum.proto.replica.v1.CallFailure;
import io.kvorum.proto.replica.v1.ReplicaError;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** The error tables of the wire, each way; the contract checks them end to end. */
class WireEdgeTest {
  private static final NodeId PEER = NodeId.of("n2");

  @Test
  void eachDomainErrorTravelsAsItsOwnCodeAndArrivesAsItself() {
    assertThat(roundTrip(new OverloadedException("storage")))
        .isInstanceOf(OverloadedException.class);
    assertThat(roundTrip(new InvalidRequestException(null, "bad")))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("bad");
    assertThat(roundTrip(new UnavailableException("shutting down")))
        .isInstanceOf(UnavailableException.class)
        .hasMessageContaining("shutting down");
    assertThat(roundTrip(new StorageException(StorageException.Kind.NO_SPACE, "put", null, null)))
        .isInstanceOfSatisfying(
            StorageException.class,
            e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.NO_SPACE))
        .hasMessageContaining("n2")
        .hasMessageContaining("put failed");
  }

  @Test
  void aVersionRefusedForItsClockArrivesWithItsOffsetsAndTheRefusingReplica() {
    ClockOffsetException refused =
        new ClockOffsetException("the write's version is 3600000 ms ahead", 3_600_000, 500);

    assertThat(WireEdge.toWire(refused).getCode()).isEqualTo(ReplicaError.Code.CLOCK_OFFSET);
    assertThat(roundTrip(refused))
        .isInstanceOfSatisfying(
            ClockOffsetException.class,
            e -> {
              assertThat(e.offsetMillis()).isEqualTo(3_600_000);
              assertThat(e.maxOffsetMillis()).isEqualTo(500);
            })
        .hasMessage("n2 refused the write: the write's version is 3600000 ms ahead");
  }

  @Test
  void anythingElseIsTheReplicasInternalFailure() {
    for (RuntimeException error :
        new RuntimeException[] {
          new StorageException(StorageException.Kind.FAILURE, "get", null, null),
          new IllegalStateException("a bug"),
          new CompletionException(new NotEnoughReplicasException(2, 1)),
          new PeerUnavailableException(NodeId.of("n3"), "down", null)
        }) {
      assertThat(WireEdge.toWire(error).getCode()).isEqualTo(ReplicaError.Code.INTERNAL);
      assertThat(roundTrip(error))
          .isInstanceOfSatisfying(
              StorageException.class,
              e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.FAILURE));
    }
  }

  @Test
  void aCodeThisNodeDoesNotKnowReadsAsInternal() {
    ReplicaError future = ReplicaError.newBuilder().setCodeValue(99).setMessage("new").build();

    assertThat(WireEdge.fromWire(PEER, future)).isInstanceOf(StorageException.class);
  }

  @Test
  void everyCodeArrivesAsAKindThatTravelsAsTheSameCode() {
    for (ReplicaError.Code code : ReplicaError.Code.values()) {
      if (code == ReplicaError.Code.UNRECOGNIZED) {
        continue;
      }
      KvorumException arrived =
          WireEdge.fromWire(PEER, ReplicaError.newBuilder().setCode(code).setMessage("m").build());

      assertThat(WireEdge.toWire(arrived).getCode())
          .as("%s arrives as %s", code, FailureKind.of(arrived))
          .isEqualTo(
              code == ReplicaError.Code.CODE_UNSPECIFIED ? ReplicaError.Code.INTERNAL : code);
    }
  }

  @Test
  void aFailedCallWithTheTrailerIsTheReplicasErrorAndWithoutItTheTransports() {
    Metadata trailers = new Metadata();
    trailers.put(
        WireEdge.FAILURE,
        CallFailure.newBuilder()
            .setError(WireEdge.toWire(new OverloadedException("storage")))
            .build());

    assertThat(
            WireEdge.fromStatus(
                PEER, "its scan", Status.RESOURCE_EXHAUSTED.asRuntimeException(trailers)))
        .isInstanceOf(OverloadedException.class);
    KvorumException noAnswer =
        WireEdge.fromStatus(
            PEER, "its scan", Status.UNAVAILABLE.withDescription("refused").asRuntimeException());
    assertThat(noAnswer)
        .isInstanceOf(PeerUnavailableException.class)
        .hasMessageContaining("its scan failed: UNAVAILABLE (refused)");
    assertThat(((PeerUnavailableException) noAnswer).peer()).isEqualTo(PEER);
  }

  private static KvorumException roundTrip(RuntimeException error) {
    return WireEdge.fromWire(PEER, WireEdge.toWire(error));
  }
}
