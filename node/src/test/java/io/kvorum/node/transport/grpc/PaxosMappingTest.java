package io.kvorum.node.transport.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.consensus.round.Ballot;
import io.kvorum.node.consensus.round.Proposal;
import io.kvorum.node.consensus.round.Reply;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import io.kvorum.proto.replica.v1.PaxosReply;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Paxos replies survive the wire: a refused prepare keeps what the acceptor holds (issue 42), and a
 * refusal without it (a refused accept, an older release) reads as one.
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
}
