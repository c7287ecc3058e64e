package io.kvorum.node.transport.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.consensus.PaxosProtocol;
import io.kvorum.node.consensus.round.Ballot;
import io.kvorum.node.consensus.round.Condition;
import io.kvorum.node.consensus.round.ConditionalWrite;
import io.kvorum.node.consensus.round.Outcome;
import io.kvorum.node.consensus.round.Proposal;
import io.kvorum.node.consensus.round.Reply;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Quorum;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import io.kvorum.proto.replica.v1.PaxosReply;
import io.kvorum.proto.replica.v1.ReplicaRequest;
import io.kvorum.proto.replica.v1.ReplicaResponse;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Paxos replies survive the wire: a refused prepare keeps what the acceptor holds (issue 42), and a
 * refusal without it (a refused accept, an older release) reads as one. So does a conditional write
 * handed to its key's proposer, and each way it can end.
 */
class PaxosMappingTest {
  private static final Ballot MINE = new Ballot(Version.of(10, 0), NodeId.of("n1"));
  private static final Ballot HIGHER = new Ballot(Version.of(20, 0), NodeId.of("n2"));

  @Test
  void everyReplySurvivesTheRoundTripThroughBytes() throws Exception {
    Record stored = Record.value(Version.of(5, 0), new byte[] {1, 2}, Record.NO_EXPIRY, 3);
    Proposal accepted = new Proposal(HIGHER, Optional.of(stored), Optional.of(Version.of(4, 0)));
    List<Reply> replies =
        List.of(
            new Reply.Promise(MINE, Optional.of(accepted), Optional.of(stored)),
            new Reply.Promise(MINE, Optional.empty(), Optional.empty()),
            new Reply.Accepted(MINE),
            new Reply.Accepted(MINE, true),
            new Reply.Rejected(MINE, HIGHER),
            new Reply.Rejected(
                MINE,
                HIGHER,
                Optional.of(new Reply.Held(Optional.of(accepted), Optional.of(stored)))),
            new Reply.Rejected(
                MINE, HIGHER, Optional.of(new Reply.Held(Optional.empty(), Optional.empty()))));

    for (Reply reply : replies) {
      byte[] bytes = PaxosMapping.toProto(reply).toByteArray();
      assertThat(PaxosMapping.fromProto(PaxosReply.parseFrom(bytes))).isEqualTo(reply);
    }
  }

  @Test
  void aWriteHandedOverAndEveryAnswerToItSurviveTheRoundTripThroughBytes() throws Exception {
    PaxosMapping.ProposeCodec codec = new PaxosMapping.ProposeCodec();
    Record stored = Record.value(Version.of(5, 0), new byte[] {1, 2}, Record.NO_EXPIRY, 3);
    List<ConditionalWrite> writes =
        List.of(
            ConditionalWrite.put(new Condition.IfAbsent(), new byte[] {7}, 60_000, 3),
            ConditionalWrite.put(new Condition.IfMatch(Version.of(5, 0)), new byte[0], 0, 1),
            ConditionalWrite.delete(new Condition.IfMatch(Version.of(5, 0)), 3));
    for (ConditionalWrite write : writes) {
      PaxosProtocol.Propose propose =
          new PaxosProtocol.Propose(
              Key.utf8("k"),
              write,
              new Quorum(2, 3),
              Duration.ofMillis(1_500),
              NodeId.of("n2"),
              Version.of(9, 1));
      ReplicaRequest.Builder message = ReplicaRequest.newBuilder();
      codec.putRequest(message, propose);
      PaxosProtocol.Propose back =
          codec.takeRequest(ReplicaRequest.parseFrom(message.build().toByteArray()));

      assertThat(back.key()).isEqualTo(propose.key());
      assertThat(back.write().condition()).isEqualTo(write.condition());
      assertThat(back.write().value()).isEqualTo(write.value());
      assertThat(back.write().ttlMillis()).isEqualTo(write.ttlMillis());
      assertThat(back.write().replicas()).isEqualTo(write.replicas());
      assertThat(back.quorum()).isEqualTo(propose.quorum());
      assertThat(back.timeout()).isBetween(Duration.ofMillis(1_500), Duration.ofMillis(1_501));
      assertThat(back.origin()).isEqualTo(propose.origin());
      assertThat(back.sent()).isEqualTo(propose.sent());
    }
    List<PaxosProtocol.Proposed> answers =
        List.of(
            new PaxosProtocol.Proposed.Decided(new Outcome.Applied(stored)),
            new PaxosProtocol.Proposed.Decided(new Outcome.Refused(Optional.of(stored))),
            new PaxosProtocol.Proposed.Decided(new Outcome.Refused(Optional.empty())),
            new PaxosProtocol.Proposed.Undecided("no majority answered"));
    for (PaxosProtocol.Proposed answer : answers) {
      ReplicaResponse.Builder message = ReplicaResponse.newBuilder();
      codec.putAnswer(message, answer);
      assertThat(
              codec.takeAnswer(
                  NodeId.of("n2"), ReplicaResponse.parseFrom(message.build().toByteArray())))
          .isEqualTo(answer);
    }
  }
}
