package io.kvorum.node.consensus.rocksdb;

import io.kvorum.node.consensus.round.AcceptorState;
import io.kvorum.node.consensus.round.Ballot;
import io.kvorum.node.consensus.round.Proposal;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import io.kvorum.node.storage.rocksdb.RecordCodec;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * An acceptor's state as stored: {@code format (1 byte) | promised ballot | 0, or 1 and the
 * accepted proposal}; a ballot is {@code version (8 bytes) | proposer id (length-prefixed UTF-8)};
 * a proposal is {@code ballot | 0, or 1 and the record's length (4 bytes) and the record in
 * RecordCodec's form | 0, or 1 and the parent version (8 bytes)}.
 */
final class AcceptorStateCodec {
  private static final byte FORMAT = 1;

  private AcceptorStateCodec() {}

  static byte[] encode(AcceptorState state) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(FORMAT);
      ballot(out, state.promised());
      out.writeBoolean(state.accepted().isPresent());
      if (state.accepted().isPresent()) {
        Proposal accepted = state.accepted().get();
        ballot(out, accepted.ballot());
        out.writeBoolean(accepted.value().isPresent());
        if (accepted.value().isPresent()) {
          byte[] record = RecordCodec.encode(accepted.value().get());
          out.writeInt(record.length);
          out.write(record);
        }
        out.writeBoolean(accepted.parent().isPresent());
        if (accepted.parent().isPresent()) {
          out.writeLong(accepted.parent().get().value());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /**
   * @throws IllegalArgumentException if {@code bytes} is not a state this codec wrote
   */
  static AcceptorState decode(byte[] bytes) {
    try {
      ByteBuffer in = ByteBuffer.wrap(bytes);
      if (in.get() != FORMAT) {
        throw new IllegalArgumentException("unknown acceptor state format " + bytes[0]);
      }
      Ballot promised = ballot(in);
      if (in.get() == 0) {
        return new AcceptorState(promised, Optional.empty());
      }
      Ballot ballot = ballot(in);
      Optional<Record> value = Optional.empty();
      if (in.get() != 0) {
        int length = in.getInt();
        value = Optional.of(RecordCodec.decode(bytes, in.position(), length));
        in.position(in.position() + length);
      }
      Optional<Version> parent =
          in.get() == 0 ? Optional.empty() : Optional.of(new Version(in.getLong()));
      return new AcceptorState(promised, Optional.of(new Proposal(ballot, value, parent)));
    } catch (java.nio.BufferUnderflowException e) {
      throw new IllegalArgumentException("a truncated acceptor state", e);
    }
  }

  private static void ballot(DataOutputStream out, Ballot ballot) throws IOException {
    byte[] id = ballot.proposer().value().getBytes(StandardCharsets.UTF_8);
    out.writeLong(ballot.version().value());
    out.writeShort(id.length);
    out.write(id);
  }

  private static Ballot ballot(ByteBuffer in) {
    Version version = new Version(in.getLong());
    byte[] id = new byte[in.getShort() & 0xFFFF];
    in.get(id);
    return new Ballot(version, NodeId.of(new String(id, StandardCharsets.UTF_8)));
  }
}
