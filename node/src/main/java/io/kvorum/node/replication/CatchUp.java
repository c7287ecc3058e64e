package io.kvorum.node.replication;

import io.kvorum.node.core.Failures;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.topology.Member;
import io.kvorum.node.topology.Topology;
import io.kvorum.node.transport.PeerTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Catch-up before ready: a starting node says hello to every peer, and each peer delivers the hints
 * it holds for this node, and has them confirmed, before answering. The node reports ready once
 * every reachable peer answered; an unreachable peer fails fast and is skipped; the whole wait is
 * bounded. A peer that answered is evidently reachable, so the hints held here for it go out at
 * once too.
 */
public final class CatchUp {
  private static final Logger log = LoggerFactory.getLogger(CatchUp.class);

  private CatchUp() {}

  /**
   * Completes (never exceptionally) when catch-up is over, at the latest after {@code limit}, kept
   * on {@code timer} (each hello also has the transport's catch-up deadline).
   *
   * @param greeted told of each peer that answered the hello
   */
  public static CompletableFuture<Void> run(
      Topology topology,
      PeerTransport transport,
      Duration limit,
      Consumer<NodeId> greeted,
      ScheduledExecutorService timer) {
    List<CompletableFuture<Void>> hellos = new ArrayList<>();
    for (Member peer : topology.peers()) {
      hellos.add(
          transport
              .call(peer.id(), CatchUpProtocol.HELLO, topology.self())
              .handle(
                  (delivered, error) -> {
                    if (error == null) {
                      log.info("caught up with {}: it delivered {} hints", peer.id(), delivered);
                      greeted.accept(peer.id());
                    } else {
                      log.info(
                          "skipping catch-up with {}: {}", peer.id(), Failures.rootMessage(error));
                    }
                    return null;
                  }));
    }
    CompletableFuture<Void> over = new CompletableFuture<>();
    CompletableFuture.allOf(hellos.toArray(CompletableFuture[]::new))
        .whenComplete((done, error) -> over.complete(null));
    ScheduledFuture<?> limited =
        timer.schedule(() -> over.complete(null), limit.toMillis(), TimeUnit.MILLISECONDS);
    return over.whenComplete((done, error) -> limited.cancel(false));
  }
}
