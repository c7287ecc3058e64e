package io.kvorum.node.replication;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.PlantedBug;
import io.kvorum.node.core.Record;
import io.kvorum.node.replica.Replicas;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Read repair: once every replica of a read has answered (or could not), the newest record among
 * the answers is written back, in the background, to each of its own replicas that answered with an
 * older one or none: the first {@link Record#replicas} of the key's ranking, which may be fewer
 * than the read asked (a value written with {@code from=1} and read with {@code from=3} stays on
 * its one node, SPEC §3). Replicas that did not answer are left to hinted handoff and later reads.
 */
public final class ReadRepairer {
  private static final Logger log = LoggerFactory.getLogger(ReadRepairer.class);
  private final Replicas replicas;
  private final Counter repairs;

  public ReadRepairer(Replicas replicas, MeterRegistry registry) {
    this.replicas = replicas;
    this.repairs =
        Counter.builder("kvorum.read.repairs")
            .description("stale replicas sent the newest record by read repair")
            .register(registry);
  }

  /**
   * Repairs the replicas of {@code key} that answered {@code answers} to a read.
   *
   * @param ranking the nodes the read asked, in the key's ranking order
   */
  public void repair(Key key, List<NodeId> ranking, Map<NodeId, Optional<Record>> answers) {
    Record newest = Record.newest(answers.values()).orElse(null);
    if (newest == null) {
      return;
    }
    if (PlantedBug.READ_REPAIR_OLDER.planted()) {
      newest = PlantedBug.olderOverNewer(answers.values(), newest);
    }
    List<NodeId> owners = ranking.subList(0, Math.min(ranking.size(), newest.replicas()));
    for (Map.Entry<NodeId, Optional<Record>> answer : answers.entrySet()) {
      if (owners.contains(answer.getKey()) && newest.supersedes(answer.getValue().orElse(null))) {
        repairs.increment();
        NodeId stale = answer.getKey();
        replicas
            .write(stale, key, newest)
            .whenComplete(
                (ok, error) -> {
                  if (error != null) {
                    log.debug("read repair of {} on {} failed: {}", key, stale, error.toString());
                  }
                });
      }
    }
  }
}
