package io.kvorum.node.consensus.round;

import io.kvorum.node.core.Record;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** What a simulated run did: every operation with its answer and times, every record proposed. */
final class History {
  enum Result {
    PENDING,
    APPLIED,
    REFUSED,
    UNKNOWN
  }

  static final class Operation {
    private final long id;
    final int proposer;
    final long start;
    long end = Long.MAX_VALUE;
    Result result = Result.PENDING;
    Record written;
    Optional<Record> current = Optional.empty();

    Operation(long id, int proposer, long start) {
      this.id = id;
      this.proposer = proposer;
      this.start = start;
    }

    long id() {
      return id;
    }

    @Override
    public String toString() {
      return "op " + id + " of p" + proposer + " [" + start + ", " + end + "] " + result;
    }
  }

  final List<Operation> operations = new ArrayList<>();
  final Map<Long, Record> proposed = new HashMap<>();
  List<Proposal> chosen = List.of();

  Operation begin(int proposer, long step) {
    Operation op = new Operation(operations.size(), proposer, step);
    operations.add(op);
    return op;
  }

  void proposed(Record record) {
    proposed.put(record.version().value(), record);
  }

  void applied(Operation op, Record written, long step) {
    op.result = Result.APPLIED;
    op.written = written;
    op.end = step;
  }

  void refused(Operation op, Optional<Record> current, long step) {
    op.result = Result.REFUSED;
    op.current = current;
    op.end = step;
  }

  void unknown(Operation op) {
    op.result = Result.UNKNOWN;
  }

  void chosen(List<Proposal> chosen) {
    this.chosen = List.copyOf(chosen);
  }
}
