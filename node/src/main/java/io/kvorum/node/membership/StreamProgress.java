package io.kvorum.node.membership;

import io.kvorum.node.topology.StreamFigures;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What one node streamed to or from one member during the change in progress, as this node sees it:
 * for {@code GET /v0/cluster}. Thread-safe.
 */
public final class StreamProgress {
  private final AtomicLong recordsSent = new AtomicLong();
  private final AtomicLong bytesSent = new AtomicLong();
  private final AtomicLong recordsReceived = new AtomicLong();
  private final AtomicLong bytesReceived = new AtomicLong();
  private final AtomicBoolean done = new AtomicBoolean();

  void sent(long bytes) {
    recordsSent.incrementAndGet();
    bytesSent.addAndGet(bytes);
  }

  void received(long bytes) {
    recordsReceived.incrementAndGet();
    bytesReceived.addAndGet(bytes);
  }

  void done() {
    done.set(true);
  }

  public StreamFigures figures() {
    return new StreamFigures(
        recordsSent.get(), bytesSent.get(), recordsReceived.get(), bytesReceived.get(), done.get());
  }
}
