package io.kvorum.node.transport.grpc;

import io.grpc.MethodDescriptor;
import io.kvorum.node.consensus.PaxosProtocol;
import io.kvorum.node.consensus.round.Ballot;
import io.kvorum.node.consensus.round.Condition;
import io.kvorum.node.consensus.round.ConditionalWrite;
import io.kvorum.node.consensus.round.Outcome;
import io.kvorum.node.consensus.round.Proposal;
import io.kvorum.node.consensus.round.Reply;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Quorum;
import io.kvorum.node.core.Version;
import io.kvorum.node.transport.Operation;
import io.kvorum.proto.replica.v1.AcceptRequest;
import io.kvorum.proto.replica.v1.PaxosAccepted;
import io.kvorum.proto.replica.v1.PaxosBallot;
import io.kvorum.proto.replica.v1.PaxosPromise;
import io.kvorum.proto.replica.v1.PaxosProposal;
import io.kvorum.proto.replica.v1.PaxosRepairRequest;
import io.kvorum.proto.replica.v1.PaxosRepairResponse;
import io.kvorum.proto.replica.v1.PaxosReply;
import io.kvorum.proto.replica.v1.PrepareRequest;
import io.kvorum.proto.replica.v1.ProposeRefused;
import io.kvorum.proto.replica.v1.ProposeRequest;
import io.kvorum.proto.replica.v1.ProposeResponse;
import io.kvorum.proto.replica.v1.ReplicaGrpc;
import io.kvorum.proto.replica.v1.ReplicaRequest;
import io.kvorum.proto.replica.v1.ReplicaResponse;
import java.time.Duration;
import java.util.Optional;

/**
 * The Paxos protocol of conditional writes on the wire: prepares and accepts on the Exchange
 * stream, answered by {@link PaxosReply}s, writes handed to a key's proposer on it too, and the
 * {@code PaxosRepair} call of a membership change; the messages, domain to protobuf and back.
 */
final class PaxosMapping {
  private PaxosMapping() {}

  static void register(WireProtocols.Builder wire) {
    wire.add(new PrepareCodec())
        .add(new AcceptCodec())
        .add(new ProposeCodec())
        .add(new RepairCodec());
  }

  private static final class RepairCodec
      implements WireCodecs.Unary<
          PaxosProtocol.Repair, PaxosProtocol.Repaired, PaxosRepairRequest, PaxosRepairResponse> {
    @Override
    public Operation<PaxosProtocol.Repair, PaxosProtocol.Repaired> operation() {
      return PaxosProtocol.REPAIR;
    }

    @Override
    public MethodDescriptor<PaxosRepairRequest, PaxosRepairResponse> method() {
      return ReplicaGrpc.getPaxosRepairMethod();
    }

    @Override
    public PaxosRepairRequest encode(PaxosProtocol.Repair repair) {
      PaxosRepairRequest.Builder request = PaxosRepairRequest.newBuilder().setEpoch(repair.epoch());
      repair.after().ifPresent(key -> request.setAfter(ProtoMapping.bytes(key.bytes())));
      return request.build();
    }

    @Override
    public PaxosProtocol.Repair decode(PaxosRepairRequest message) {
      return new PaxosProtocol.Repair(
          message.getEpoch(),
          message.hasAfter()
              ? Optional.of(ProtoMapping.key(message.getAfter()))
              : Optional.empty());
    }

    @Override
    public PaxosRepairResponse encodeAnswer(PaxosProtocol.Repaired repaired) {
      PaxosRepairResponse.Builder answer =
          PaxosRepairResponse.newBuilder().setFinished(repaired.finished());
      repaired.next().ifPresent(key -> answer.setNext(ProtoMapping.bytes(key.bytes())));
      return answer.build();
    }

    @Override
    public PaxosProtocol.Repaired decodeAnswer(NodeId peer, PaxosRepairResponse message) {
      return new PaxosProtocol.Repaired(
          message.getFinished(),
          message.hasNext() ? Optional.of(ProtoMapping.key(message.getNext())) : Optional.empty());
    }
  }

  private static final class PrepareCodec
      implements WireCodecs.Exchanged<PaxosProtocol.Prepare, Reply> {
    @Override
    public Operation<PaxosProtocol.Prepare, Reply> operation() {
      return PaxosProtocol.PREPARE;
    }

    @Override
    public ReplicaRequest.OperationCase requestCase() {
      return ReplicaRequest.OperationCase.PREPARE;
    }

    @Override
    public void putRequest(ReplicaRequest.Builder message, PaxosProtocol.Prepare prepare) {
      message.setPrepare(
          PrepareRequest.newBuilder()
              .setKey(ProtoMapping.bytes(prepare.key().bytes()))
              .setBallot(toProto(prepare.ballot())));
    }

    @Override
    public PaxosProtocol.Prepare takeRequest(ReplicaRequest message) {
      return new PaxosProtocol.Prepare(
          ProtoMapping.key(message.getPrepare().getKey()),
          fromProto(message.getPrepare().getBallot()));
    }

    @Override
    public void putAnswer(ReplicaResponse.Builder message, Reply reply) {
      message.setPaxos(toProto(reply));
    }

    @Override
    public Reply takeAnswer(NodeId peer, ReplicaResponse message) {
      ProtoMapping.expect(message, ReplicaResponse.ResultCase.PAXOS);
      return fromProto(message.getPaxos());
    }
  }

  private static final class AcceptCodec
      implements WireCodecs.Exchanged<PaxosProtocol.Accept, Reply> {
    @Override
    public Operation<PaxosProtocol.Accept, Reply> operation() {
      return PaxosProtocol.ACCEPT;
    }

    @Override
    public ReplicaRequest.OperationCase requestCase() {
      return ReplicaRequest.OperationCase.ACCEPT;
    }

    @Override
    public void putRequest(ReplicaRequest.Builder message, PaxosProtocol.Accept accept) {
      message.setAccept(
          AcceptRequest.newBuilder()
              .setKey(ProtoMapping.bytes(accept.key().bytes()))
              .setProposal(toProto(accept.proposal()))
              .setCommit(accept.commit()));
    }

    @Override
    public PaxosProtocol.Accept takeRequest(ReplicaRequest message) {
      return new PaxosProtocol.Accept(
          ProtoMapping.key(message.getAccept().getKey()),
          fromProto(message.getAccept().getProposal()),
          message.getAccept().getCommit());
    }

    @Override
    public void putAnswer(ReplicaResponse.Builder message, Reply reply) {
      message.setPaxos(toProto(reply));
    }

    @Override
    public Reply takeAnswer(NodeId peer, ReplicaResponse message) {
      ProtoMapping.expect(message, ReplicaResponse.ResultCase.PAXOS);
      return fromProto(message.getPaxos());
    }
  }

  static final class ProposeCodec
      implements WireCodecs.Exchanged<PaxosProtocol.Propose, PaxosProtocol.Proposed> {
    @Override
    public Operation<PaxosProtocol.Propose, PaxosProtocol.Proposed> operation() {
      return PaxosProtocol.PROPOSE;
    }

    @Override
    public ReplicaRequest.OperationCase requestCase() {
      return ReplicaRequest.OperationCase.PROPOSE;
    }

    @Override
    public void putRequest(ReplicaRequest.Builder message, PaxosProtocol.Propose propose) {
      ConditionalWrite write = propose.write();
      ProposeRequest.Builder request =
          ProposeRequest.newBuilder()
              .setKey(ProtoMapping.bytes(propose.key().bytes()))
              .setTtlMillis(write.ttlMillis())
              .setReplicas(write.replicas())
              .setAck(propose.quorum().ack())
              .setFrom(propose.quorum().from())
              .setTimeoutMillis(
                  (int) Math.clamp(propose.timeout().toMillis() + 1, 1, Integer.MAX_VALUE))
              .setOrigin(propose.origin().value())
              .setSent(propose.sent().value());
      switch (write.condition()) {
        case Condition.IfMatch match -> request.setIfMatch(match.version().value());
        case Condition.IfAbsent absent -> {}
        case Condition.Never never ->
            throw new IllegalArgumentException("a linearizable read is not handed over");
      }
      if (write.value() != null) {
        request.setValue(ProtoMapping.bytes(write.value()));
      }
      message.setPropose(request);
    }

    @Override
    public PaxosProtocol.Propose takeRequest(ReplicaRequest message) {
      ProposeRequest request = message.getPropose();
      Condition condition =
          request.hasIfMatch()
              ? new Condition.IfMatch(new Version(request.getIfMatch()))
              : new Condition.IfAbsent();
      return new PaxosProtocol.Propose(
          ProtoMapping.key(request.getKey()),
          new ConditionalWrite(
              condition,
              request.hasValue() ? request.getValue().toByteArray() : null,
              request.getTtlMillis(),
              request.getReplicas()),
          new Quorum(request.getAck(), request.getFrom()),
          Duration.ofMillis(request.getTimeoutMillis()),
          NodeId.of(request.getOrigin()),
          new Version(request.getSent()));
    }

    @Override
    public void putAnswer(ReplicaResponse.Builder message, PaxosProtocol.Proposed proposed) {
      ProposeResponse.Builder answer = ProposeResponse.newBuilder();
      switch (proposed) {
        case PaxosProtocol.Proposed.Decided(Outcome.Applied applied) ->
            answer.setApplied(ProtoMapping.toProto(applied.written()));
        case PaxosProtocol.Proposed.Decided(Outcome.Refused refused) -> {
          ProposeRefused.Builder current = ProposeRefused.newBuilder();
          refused.current().ifPresent(r -> current.setCurrent(ProtoMapping.toProto(r)));
          answer.setRefused(current);
        }
        case PaxosProtocol.Proposed.Decided decided ->
            throw new IllegalStateException("a write handed over ended " + decided.outcome());
        case PaxosProtocol.Proposed.Undecided undecided -> answer.setUndecided(undecided.why());
      }
      message.setPropose(answer);
    }

    @Override
    public PaxosProtocol.Proposed takeAnswer(NodeId peer, ReplicaResponse message) {
      ProtoMapping.expect(message, ReplicaResponse.ResultCase.PROPOSE);
      ProposeResponse answer = message.getPropose();
      return switch (answer.getOutcomeCase()) {
        case APPLIED ->
            new PaxosProtocol.Proposed.Decided(
                new Outcome.Applied(ProtoMapping.fromProto(answer.getApplied())));
        case REFUSED ->
            new PaxosProtocol.Proposed.Decided(
                new Outcome.Refused(
                    answer.getRefused().hasCurrent()
                        ? Optional.of(ProtoMapping.fromProto(answer.getRefused().getCurrent()))
                        : Optional.empty()));
        case UNDECIDED -> new PaxosProtocol.Proposed.Undecided(answer.getUndecided());
        case OUTCOME_NOT_SET ->
            throw new IllegalArgumentException("a propose answer without an outcome");
      };
    }
  }

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
      case Reply.Promise promise ->
          message.setPromise(held(new Reply.Held(promise.accepted(), promise.stored())));
      case Reply.Accepted accepted ->
          message.setAccepted(PaxosAccepted.newBuilder().setCommitted(accepted.committed()));
      case Reply.Rejected rejected -> {
        message.setRejectedBy(toProto(rejected.higher()));
        rejected.held().ifPresent(h -> message.setHeld(held(h)));
      }
    }
    return message.build();
  }

  private static PaxosPromise held(Reply.Held held) {
    PaxosPromise.Builder answer = PaxosPromise.newBuilder();
    held.accepted().ifPresent(a -> answer.setAccepted(toProto(a)));
    held.stored().ifPresent(r -> answer.setStored(ProtoMapping.toProto(r)));
    return answer.build();
  }

  private static Reply.Held held(PaxosPromise held) {
    return new Reply.Held(
        held.hasAccepted() ? Optional.of(fromProto(held.getAccepted())) : Optional.empty(),
        held.hasStored()
            ? Optional.of(ProtoMapping.fromProto(held.getStored()))
            : Optional.empty());
  }

  /**
   * @throws IllegalArgumentException if the message is not a valid reply
   */
  static Reply fromProto(PaxosReply reply) {
    Ballot ballot = fromProto(reply.getBallot());
    return switch (reply.getAnswerCase()) {
      case PROMISE -> {
        Reply.Held held = held(reply.getPromise());
        yield new Reply.Promise(ballot, held.accepted(), held.stored());
      }
      case ACCEPTED -> new Reply.Accepted(ballot, reply.getAccepted().getCommitted());
      case REJECTED_BY ->
          new Reply.Rejected(
              ballot,
              fromProto(reply.getRejectedBy()),
              reply.hasHeld() ? Optional.of(held(reply.getHeld())) : Optional.empty());
      case ANSWER_NOT_SET -> throw new IllegalArgumentException("a Paxos reply without an answer");
    };
  }
}
