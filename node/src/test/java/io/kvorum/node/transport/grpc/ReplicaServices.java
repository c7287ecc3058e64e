package io.kvorum.node.transport.grpc;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.OverloadedException;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.transport.ReplicaService;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/** Replica services that misbehave on purpose, for the faults a peer can have. */
final class ReplicaServices {
  private ReplicaServices() {}

  /** A node's served side, replaceable while its server runs. */
  static final class Switchable implements ReplicaService {
    private volatile ReplicaService delegate;

    void use(ReplicaService service) {
      this.delegate = service;
    }

    @Override
    public CompletableFuture<Optional<Record>> read(Key key) {
      return delegate.read(key);
    }

    @Override
    public CompletableFuture<Void> write(Key key, Record record) {
      return delegate.write(key, record);
    }

    @Override
    public ScanCursor scan(KeyRange range) {
      return delegate.scan(range);
    }

    @Override
    public CompletableFuture<Long> hello(NodeId peer) {
      return delegate.hello(peer);
    }
  }

  /** Answers nothing until told to: every future stays pending. */
  static final class Stalled implements ReplicaService {
    private final Deque<CompletableFuture<?>> pending = new ArrayDeque<>();

    private synchronized <T> CompletableFuture<T> stall() {
      CompletableFuture<T> future = new CompletableFuture<>();
      pending.add(future);
      return future;
    }

    synchronized void answerAll() {
      for (CompletableFuture<?> f = pending.poll(); f != null; f = pending.poll()) {
        f.complete(null);
      }
    }

    @Override
    public CompletableFuture<Optional<Record>> read(Key key) {
      return this.<Optional<Record>>stall().thenApply(ignored -> Optional.empty());
    }

    @Override
    public CompletableFuture<Void> write(Key key, Record record) {
      return stall();
    }

    @Override
    public ScanCursor scan(KeyRange range) {
      return new ScanCursor() {
        @Override
        public CompletableFuture<List<Entry>> next(int maxEntries, long maxBytes) {
          return Stalled.this.<List<Entry>>stall().thenApply(ignored -> List.of());
        }

        @Override
        public void close() {}
      };
    }

    @Override
    public CompletableFuture<Long> hello(NodeId peer) {
      return stall();
    }
  }

  /** A node whose storage queue is full. */
  static final class Overloaded implements ReplicaService {
    @Override
    public CompletableFuture<Optional<Record>> read(Key key) {
      return CompletableFuture.failedFuture(new OverloadedException("storage"));
    }

    @Override
    public CompletableFuture<Void> write(Key key, Record record) {
      return CompletableFuture.failedFuture(new OverloadedException("storage"));
    }

    @Override
    public ScanCursor scan(KeyRange range) {
      throw new OverloadedException("storage");
    }

    @Override
    public CompletableFuture<Long> hello(NodeId peer) {
      return CompletableFuture.failedFuture(new OverloadedException("storage"));
    }
  }

  /** Counts the entries the peer's scans hand to the wire. */
  static ReplicaService counting(ReplicaService service, AtomicLong produced) {
    return new ReplicaService() {
      @Override
      public CompletableFuture<Optional<Record>> read(Key key) {
        return service.read(key);
      }

      @Override
      public CompletableFuture<Void> write(Key key, Record record) {
        return service.write(key, record);
      }

      @Override
      public ScanCursor scan(KeyRange range) {
        ScanCursor cursor = service.scan(range);
        return new ScanCursor() {
          @Override
          public CompletableFuture<List<Entry>> next(int maxEntries, long maxBytes) {
            return cursor
                .next(maxEntries, maxBytes)
                .thenApply(
                    batch -> {
                      produced.addAndGet(batch.size());
                      return batch;
                    });
          }

          @Override
          public void close() {
            cursor.close();
          }
        };
      }

      @Override
      public CompletableFuture<Long> hello(NodeId peer) {
        return service.hello(peer);
      }
    };
  }
}
