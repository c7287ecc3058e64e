package io.kvorum.node.changes;

import io.kvorum.node.core.NodeId;
import io.kvorum.node.storage.ChangeLog.Page;
import io.kvorum.node.storage.ChangeLog.Read;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

/**
 * The reads of the members' change logs by every feed a node serves, gathered: the reads of one
 * member asked within {@link #WINDOW} of the first go to it in one call ({@link
 * ChangesProtocol#READ}; this node's own log: one trip to its storage), and feeds asking the very
 * same read share its page. Feeds poll on a common beat ({@link ChangeFeed} aligns its timer to the
 * poll interval), so idle feeds' reads meet: a thousand feeds cost one call per member per poll,
 * not a thousand. A call carries at most {@link #MAX_READS} reads; the log answers them within one
 * budget (a read it leaves nothing for comes back empty, to be asked again at once). Safe from any
 * thread.
 */
final class GatheredReads {
  /** How long the first read of a call waits for others to join it. */
  static final Duration WINDOW = Duration.ofMillis(2);

  /** Reads one call carries at most. */
  static final int MAX_READS = 1024;

  /** Sends the reads of a call to a member's log; answers a page each, in their order. */
  private final BiFunction<NodeId, List<Read>, CompletableFuture<List<Page>>> call;

  /** The call gathering reads for each member, until it is sent. Guarded by {@code this}. */
  private final Map<NodeId, Map<Read, CompletableFuture<Page>>> gathering = new HashMap<>();

  GatheredReads(BiFunction<NodeId, List<Read>, CompletableFuture<List<Page>>> call) {
    this.call = call;
  }

  /**
   * The page {@code member}'s log answers {@code read} with, sent at the latest {@link #WINDOW}
   * from now; {@code timer} waits out the window if this read opens a call.
   */
  CompletableFuture<Page> read(NodeId member, Read read, ScheduledExecutorService timer) {
    Map<Read, CompletableFuture<Page>> reads;
    Map<Read, CompletableFuture<Page>> full = null;
    boolean opened;
    CompletableFuture<Page> page;
    synchronized (this) {
      reads = gathering.get(member);
      opened = reads == null;
      if (opened) {
        reads = new LinkedHashMap<>();
        gathering.put(member, reads);
      }
      page = reads.computeIfAbsent(read, r -> new CompletableFuture<>());
      if (reads.size() >= MAX_READS) {
        gathering.remove(member);
        full = reads;
      }
    }
    if (full != null) {
      send(member, full);
    } else if (opened) {
      Map<Read, CompletableFuture<Page>> call = reads;
      try {
        timer.schedule(() -> flush(member, call), WINDOW.toNanos(), TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException e) {
        flush(member, call); // the loop is stopping: no wait for company
      }
    }
    return page;
  }

  private void flush(NodeId member, Map<Read, CompletableFuture<Page>> reads) {
    synchronized (this) {
      if (!gathering.remove(member, reads)) {
        return; // sent already, when it filled up
      }
    }
    send(member, reads);
  }

  private void send(NodeId member, Map<Read, CompletableFuture<Page>> reads) {
    List<Read> asked = new ArrayList<>(reads.keySet());
    CompletableFuture<List<Page>> answer;
    try {
      answer = call.apply(member, asked);
    } catch (RuntimeException e) {
      answer = CompletableFuture.failedFuture(e);
    }
    answer.whenComplete(
        (pages, error) -> {
          Throwable failure =
              error == null && pages.size() != asked.size()
                  ? new IllegalStateException(
                      member + " answered " + pages.size() + " pages to " + asked.size() + " reads")
                  : error;
          int i = 0;
          for (CompletableFuture<Page> page : reads.values()) {
            if (failure != null) {
              page.completeExceptionally(failure);
            } else {
              page.complete(pages.get(i++));
            }
          }
        });
  }
}
