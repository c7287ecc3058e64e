package io.kvorum.node.transport;

import io.kvorum.node.consensus.round.Ballot;
import io.kvorum.node.consensus.round.Proposal;
import io.kvorum.node.consensus.round.Reply;
import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.core.StorageException;
import io.kvorum.node.core.StorageReport;
import io.kvorum.node.storage.ChangeLog;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.function.Supplier;

/** Replica services that misbehave on purpose, for the faults a peer can have. */
public final class ReplicaServices {
  private static final ScheduledExecutorService LATER =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "replica-services-delay");
            t.setDaemon(true);
            return t;
          });

  private ReplicaServices() {}

  /** Passes everything to another service; subclasses change what they fault. */
  public abstract static class Forwarding implements ServedNode {
    protected abstract ServedNode delegate();

    @Override
    public CompletableFuture<Optional<Record>> read(Key key) {
      return delegate().read(key);
    }

    @Override
    public CompletableFuture<Void> write(Key key, Record record) {
      return delegate().write(key, record);
    }

    @Override
    public CompletableFuture<Void> writeAll(List<Entry> writes) {
      return delegate().writeAll(writes);
    }

    @Override
    public CompletableFuture<Reply> prepare(Key key, Ballot ballot) {
      return delegate().prepare(key, ballot);
    }

    @Override
    public CompletableFuture<Reply> accept(Key key, Proposal proposal) {
      return delegate().accept(key, proposal);
    }

    @Override
    public ScanCursor scan(KeyRange range) {
      return delegate().scan(range);
    }

    @Override
    public CompletableFuture<long[]> treeHashes(NodeId peer, int level, int[] positions) {
      return delegate().treeHashes(peer, level, positions);
    }

    @Override
    public ScanCursor segments(NodeId peer, int[] segments) {
      return delegate().segments(peer, segments);
    }

    @Override
    public ScanCursor handoff(long epoch, NodeId to, Key start) {
      return delegate().handoff(epoch, to, start);
    }

    @Override
    public CompletableFuture<Long> hello(NodeId peer) {
      return delegate().hello(peer);
    }

    @Override
    public CompletableFuture<Long> ping() {
      return delegate().ping();
    }

    @Override
    public Optional<StorageReport> storageReport() {
      return delegate().storageReport();
    }

    @Override
    public CompletableFuture<List<ChangeLog.Page>> changes(List<ChangeLog.Read> reads) {
      return delegate().changes(reads);
    }
  }

  /** A node's served side, replaceable while it is served. */
  public static final class Switchable extends Forwarding {
    private volatile ServedNode delegate;

    public void use(ServedNode service) {
      this.delegate = service;
    }

    @Override
    protected ServedNode delegate() {
      return delegate;
    }
  }

  /** Answers nothing until told to: every future stays pending. */
  public static final class Stalled implements ServedNode {
    private final Deque<CompletableFuture<?>> pending = new ArrayDeque<>();

    private synchronized <T> CompletableFuture<T> stall() {
      CompletableFuture<T> future = new CompletableFuture<>();
      pending.add(future);
      return future;
    }

    /** How many calls wait for an answer. */
    public synchronized int waiting() {
      return pending.size();
    }

    public synchronized void answerAll() {
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
    public CompletableFuture<Void> writeAll(List<Entry> writes) {
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
    public CompletableFuture<long[]> treeHashes(NodeId peer, int level, int[] positions) {
      return this.<long[]>stall().thenApply(ignored -> new long[positions.length]);
    }

    @Override
    public ScanCursor segments(NodeId peer, int[] segments) {
      return scan(null);
    }

    @Override
    public CompletableFuture<Long> hello(NodeId peer) {
      return stall();
    }

    @Override
    public CompletableFuture<Long> ping() {
      return this.<Long>stall().thenApply(ignored -> 0L);
    }
  }

  /** A node that fails every request with a fresh {@code error}, a scan as it opens. */
  public static ServedNode failing(Supplier<? extends RuntimeException> error) {
    return new ServedNode() {
      @Override
      public CompletableFuture<Optional<Record>> read(Key key) {
        return CompletableFuture.failedFuture(error.get());
      }

      @Override
      public CompletableFuture<Void> write(Key key, Record record) {
        return CompletableFuture.failedFuture(error.get());
      }

      @Override
      public ScanCursor scan(KeyRange range) {
        throw error.get();
      }

      @Override
      public CompletableFuture<long[]> treeHashes(NodeId peer, int level, int[] positions) {
        return CompletableFuture.failedFuture(error.get());
      }

      @Override
      public ScanCursor segments(NodeId peer, int[] segments) {
        throw error.get();
      }

      @Override
      public CompletableFuture<Long> hello(NodeId peer) {
        return CompletableFuture.failedFuture(error.get());
      }

      @Override
      public CompletableFuture<Long> ping() {
        return CompletableFuture.failedFuture(error.get());
      }
    };
  }

  /** A node whose disk is full: writes fail with NO_SPACE, reads go on. */
  public static ServedNode fullDisk(ServedNode service) {
    return new Forwarding() {
      @Override
      protected ServedNode delegate() {
        return service;
      }

      @Override
      public CompletableFuture<Void> write(Key key, Record record) {
        return writeAll(List.of(new Entry(key, record)));
      }

      @Override
      public CompletableFuture<Void> writeAll(List<Entry> writes) {
        return CompletableFuture.failedFuture(
            new StorageException(StorageException.Kind.NO_SPACE, "put", writes.get(0).key(), null));
      }
    };
  }

  /** A node that answers each read and write after a random delay of up to {@code max}. */
  public static ServedNode delayed(ServedNode service, Duration max, long seed) {
    Random random = new Random(seed);
    return new Forwarding() {
      @Override
      protected ServedNode delegate() {
        return service;
      }

      private <T> CompletableFuture<T> later(Supplier<CompletableFuture<T>> call) {
        long delay;
        synchronized (random) {
          delay = random.nextLong(max.toMillis() + 1);
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        LATER.schedule(
            () ->
                call.get()
                    .whenComplete(
                        (value, error) -> {
                          if (error == null) {
                            result.complete(value);
                          } else {
                            result.completeExceptionally(error);
                          }
                        }),
            delay,
            TimeUnit.MILLISECONDS);
        return result;
      }

      @Override
      public CompletableFuture<Optional<Record>> read(Key key) {
        return later(() -> service.read(key));
      }

      @Override
      public CompletableFuture<Void> write(Key key, Record record) {
        return later(() -> service.write(key, record));
      }

      @Override
      public CompletableFuture<Void> writeAll(List<Entry> writes) {
        return later(() -> service.writeAll(writes));
      }
    };
  }

  /** A node that never answers reads of the keys {@code dropped} accepts. */
  public static ServedNode droppingReads(ServedNode service, Predicate<Key> dropped) {
    return new Forwarding() {
      @Override
      protected ServedNode delegate() {
        return service;
      }

      @Override
      public CompletableFuture<Optional<Record>> read(Key key) {
        return dropped.test(key) ? new CompletableFuture<>() : service.read(key);
      }
    };
  }

  /** Counts the entries the node's scans hand to the wire. */
  public static ServedNode counting(ServedNode service, AtomicLong produced) {
    return new Forwarding() {
      @Override
      protected ServedNode delegate() {
        return service;
      }

      @Override
      public ScanCursor scan(KeyRange range) {
        return service
            .scan(range)
            .mapBatches(
                batch ->
                    batch.thenApply(
                        entries -> {
                          produced.addAndGet(entries.size());
                          return entries;
                        }));
      }
    };
  }

  /** Records how the node receives writes: the size of each {@code writeAll}, 1 for a write. */
  public static final class WriteBatches extends Forwarding {
    private final ServedNode service;
    private final List<Integer> sizes = new CopyOnWriteArrayList<>();

    public WriteBatches(ServedNode service) {
      this.service = service;
    }

    @Override
    protected ServedNode delegate() {
      return service;
    }

    /** The size of every batch of writes received, in order. */
    public List<Integer> sizes() {
      return List.copyOf(sizes);
    }

    @Override
    public CompletableFuture<Void> write(Key key, Record record) {
      sizes.add(1);
      return service.write(key, record);
    }

    @Override
    public CompletableFuture<Void> writeAll(List<Entry> writes) {
      sizes.add(writes.size());
      return service.writeAll(writes);
    }
  }
}
