package io.kvorum.node.transport.grpc;

import io.kvorum.node.consensus.Ballot;
import io.kvorum.node.consensus.Proposal;
import io.kvorum.node.consensus.Reply;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Version;
import io.kvorum.proto.replica.v1.PaxosAccepted;
import io.kvorum.proto.replica.v1.PaxosBallot;
import io.kvorum.proto.replica.v1.PaxosPromise;
import io.kvorum.proto.replica.v1.PaxosProposal;
import io.kvorum.proto.replica.v1.PaxosReply;
import java.util.Optional;

/** The Paxos messages of conditional writes, domain to protobuf and back. */
final class PaxosMapping {
  private PaxosMapping() {}

  static PaxosBallot toProto(Ballot ballot) {
    return PaxosBallot.newBuilder()
        .setVersion(ballot.version().value())
        .setNodeId(ballot.proposer().value())
        .build();
  }

  /**
   * @throws IllegalArgumentException if the message is not a valid ballot
   */
  static Ballot fromProto(PaxosBallot ballot) {
    return new Ballot(new Version(ballot.getVersion()), NodeId.of(ballot.getNodeId()));
  }

  static PaxosProposal toProto(Proposal proposal) {
    PaxosProposal.Builder message =
        PaxosProposal.newBuilder().setBallot(toProto(proposal.ballot()));
    proposal.value().ifPresent(r -> message.setValue(ProtoMapping.toProto(r)));
    proposal.parent().ifPresent(v -> message.setParent(v.value()));
    return message.build();
  }

  static Proposal fromProto(PaxosProposal proposal) {
    return new Proposal(
        fromProto(proposal.getBallot()),
        proposal.hasValue()
            ? Optional.of(ProtoMapping.fromProto(proposal.getValue()))
            : Optional.empty(),
        proposal.hasParent() ? Optional.of(new Version(proposal.getParent())) : Optional.empty());
  }

  static PaxosReply toProto(Reply reply) {
    PaxosReply.Builder message = PaxosReply.newBuilder().setBallot(toProto(reply.ballot()));
    switch (reply) {
      case Reply.Promise promise -> {
        PaxosPromise.Builder answer = PaxosPromise.newBuilder();
        promise.accepted().ifPresent(a -> answer.setAccepted(toProto(a)));
        promise.stored().ifPresent(r -> answer.setStored(ProtoMapping.toProto(r)));
        message.setPromise(answer);
      }
      case Reply.Accepted accepted -> message.setAccepted(PaxosAccepted.getDefaultInstance());
      case Reply.Rejected rejected -> message.setRejectedBy(toProto(rejected.higher()));
    }
    return message.build();
  }

  /**
   * @throws IllegalArgumentException if the message is not a valid reply
   */
  static Reply fromProto(PaxosReply reply) {
    Ballot ballot = fromProto(reply.getBallot());
    return switch (reply.getAnswerCase()) {
      case PROMISE ->
          new Reply.Promise(
              ballot,
              reply.getPromise().hasAccepted()
                  ? Optional.of(fromProto(reply.getPromise().getAccepted()))
                  : Optional.empty(),
              reply.getPromise().hasStored()
                  ? Optional.of(ProtoMapping.fromProto(reply.getPromise().getStored()))
                  : Optional.empty());
      case ACCEPTED -> new Reply.Accepted(ballot);
      case REJECTED_BY -> new Reply.Rejected(ballot, fromProto(reply.getRejectedBy()));
      case ANSWER_NOT_SET -> throw new IllegalArgumentException("a Paxos reply without an answer");
    };
  }
}
