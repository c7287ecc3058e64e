package io.kvorum.node.sim.check;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import java.util.Objects;

/**
 * A record some replica's storage applied, whatever brought it (a coordinator's write, a hint, read
 * repair, anti-entropy, streaming): together the applied records are everything a read could ever
 * have returned. The simulator should record the records that became the replica's newest of the
 * key; recording also those that lost to a newer one on arrival only makes the checkers lenient.
 *
 * @param key the key written
 * @param record the record applied
 * @param node the replica whose storage applied it
 * @param at when, in virtual nanoseconds
 */
public record AppliedRecord(Key key, Record record, NodeId node, long at) {
  public AppliedRecord {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(record, "record");
    Objects.requireNonNull(node, "node");
  }
}
