package io.kvorum.node.sim;

import io.kvorum.node.config.NodeConfig;
import io.kvorum.node.consensus.AcceptorStore;
import io.kvorum.node.consensus.round.AcceptorState;
import io.kvorum.node.consensus.round.Proposal;
import io.kvorum.node.consensus.round.Reply;
import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.OverloadedException;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.core.StorageException;
import io.kvorum.node.core.Version;
import io.kvorum.node.server.LocalStorage;
import io.kvorum.node.storage.ChangeLog;
import io.kvorum.node.storage.HintStore;
import io.kvorum.node.storage.StorageEngine;
import io.kvorum.node.storage.StorageStats;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One incarnation's storage on its node's {@link SimDisk}: the records, hints and acceptor states
 * as the RocksDB engine serves them. Every operation runs as a task of the node's storage threads
 * (so it waits its turn behind the others, and is refused when their queue is full, as {@link
 * OverloadedException}); writes are refused with a NO_SPACE {@link StorageException} while the disk
 * is full; records and hints are durable at the next sync ({@code --sync-writes INTERVAL}), or at
 * once with {@code --sync-writes true}; acceptor steps always at once, as their contract says. Once
 * closed (the incarnation stopped), every operation fails. Each record written logs its change with
 * it, in the same write ({@link ChangeLog}).
 */
final class SimStorage {
  private final SimDisk disk;
  private final ExecutorService executor;
  private final Random random;
  private final boolean syncEveryWrite;
  private final ChangeLog changes = new Changes();
  private boolean closed;

  private SimStorage(
      SimDisk disk, ExecutorService executor, Random random, boolean syncEveryWrite) {
    this.disk = disk;
    this.executor = executor;
    this.random = random;
    this.syncEveryWrite = syncEveryWrite;
  }

  /** The storage of an incarnation on {@code disk}, as {@code StorageFactory.open} returns it. */
  static LocalStorage open(
      SimDisk disk, NodeConfig.Storage settings, ExecutorService executor, Random random) {
    SimStorage storage = new SimStorage(disk, executor, random, settings.syncWrites().everyWrite());
    return new LocalStorage(storage.new Records(), storage.new Hints(), storage.new Acceptors());
  }

  private <T> CompletableFuture<T> read(String operation, Key key, Supplier<T> read) {
    return submit(operation, key, read);
  }

  private <T> CompletableFuture<T> write(
      String operation,
      Key key,
      boolean durable,
      Function<SimDisk.Stores, CompletableFuture<T>> w) {
    return submit(
            operation,
            key,
            () -> {
              if (disk.full()) {
                throw new StorageException(StorageException.Kind.NO_SPACE, operation, key, null);
              }
              return disk.write(w, durable);
            })
        .thenCompose(answer -> answer);
  }

  private <T> CompletableFuture<T> submit(String operation, Key key, Supplier<T> call) {
    try {
      return CompletableFuture.supplyAsync(
          () -> {
            if (closed) {
              throw new StorageException(StorageException.Kind.FAILURE, operation, key, null);
            }
            return call.get();
          },
          executor);
    } catch (RejectedExecutionException e) {
      return CompletableFuture.failedFuture(new OverloadedException("storage"));
    }
  }

  private SimDisk.Stores live() {
    return disk.live();
  }

  private final class Records implements StorageEngine {
    @Override
    public CompletableFuture<Optional<Record>> get(Key key) {
      return read("get", key, () -> live().records().get(key).join());
    }

    /** Known from memory now and then, as a memtable or a cached block answers. */
    @Override
    public Optional<Optional<Record>> getFromMemory(Key key) {
      return closed || random.nextBoolean()
          ? Optional.empty()
          : live().records().getFromMemory(key);
    }

    @Override
    public CompletableFuture<Void> put(Key key, Record record) {
      return write("put", key, syncEveryWrite, s -> s.records().put(key, record))
          .thenRun(() -> disk.applied(key, record));
    }

    @Override
    public CompletableFuture<Void> putAll(List<Entry> entries) {
      return batch(entries, StorageEngine::putAll);
    }

    /** As a batch, its changes not logged: copies a membership change streams. */
    @Override
    public CompletableFuture<Void> putAllStreamed(List<Entry> entries) {
      return batch(entries, StorageEngine::putAllStreamed);
    }

    private CompletableFuture<Void> batch(
        List<Entry> entries, BiFunction<StorageEngine, List<Entry>, CompletableFuture<Void>> put) {
      List<Entry> batch = List.copyOf(entries);
      return write("put", null, syncEveryWrite, s -> put.apply(s.records(), batch))
          .thenRun(() -> batch.forEach(e -> disk.applied(e.key(), e.record())));
    }

    /** Each batch from the live records of the moment, as a RocksDB iterator sees its snapshot. */
    @Override
    public ScanCursor scan(KeyRange range) {
      return new ScanCursor() {
        private Key after;
        private boolean done;

        @Override
        public CompletableFuture<List<Entry>> next(int maxEntries, long maxBytes) {
          return read("scan", range.start(), () -> batch(maxEntries, maxBytes));
        }

        private List<Entry> batch(int maxEntries, long maxBytes) {
          if (done) {
            return List.of();
          }
          KeyRange rest =
              after == null
                  ? range
                  : new KeyRange(
                      Key.of(Arrays.copyOf(after.bytes(), after.size() + 1)), range.end());
          List<Entry> batch = new ArrayList<>();
          try (ScanCursor cursor = live().records().scan(rest)) {
            batch.addAll(cursor.next(maxEntries, maxBytes).join());
          }
          if (batch.isEmpty()) {
            done = true;
          } else {
            after = batch.getLast().key();
          }
          return batch;
        }

        @Override
        public void close() {
          done = true;
        }
      };
    }

    /** As RocksDB's: a dead record stays while its key still holds an acceptor state. */
    @Override
    public CompletableFuture<PurgeResult> purge(long deadBeforeMillis, int limit) {
      return write(
          "purge",
          null,
          false,
          s -> {
            List<Key> held = s.acceptors().keys(Optional.empty(), Integer.MAX_VALUE).join();
            Map<Key, Record> kept = new HashMap<>();
            for (Key key : held) {
              s.records().get(key).join().ifPresent(r -> kept.put(key, r));
            }
            CompletableFuture<PurgeResult> result = s.records().purge(deadBeforeMillis, limit);
            List<Entry> restored =
                kept.entrySet().stream().map(e -> new Entry(e.getKey(), e.getValue())).toList();
            if (!restored.isEmpty()) {
              s.records().putAll(restored).join();
            }
            return result;
          });
    }

    @Override
    public CompletableFuture<Boolean> drop(Key key, Version version) {
      return write("drop", key, false, s -> s.records().drop(key, version));
    }

    @Override
    public StorageStats stats() {
      return live().records().stats();
    }

    @Override
    public ChangeLog changes() {
      return changes;
    }

    @Override
    public boolean syncWal() {
      return !closed && disk.sync();
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  /** The live records' change log, each call a task of the storage threads. */
  private final class Changes implements ChangeLog {
    @Override
    public CompletableFuture<List<Page>> readAll(List<Read> reads) {
      List<Read> asked = List.copyOf(reads);
      return SimStorage.this.read(
          "changes", null, () -> live().records().changes().readAll(asked).join());
    }

    @Override
    public CompletableFuture<Void> purge(long before) {
      return write("change purge", null, false, s -> s.records().changes().purge(before));
    }
  }

  private final class Hints implements HintStore {
    @Override
    public CompletableFuture<Void> add(NodeId target, Key key, Record record, long createdAt) {
      return write("hint", key, syncEveryWrite, s -> s.hints().add(target, key, record, createdAt));
    }

    @Override
    public CompletableFuture<List<Hint>> oldest(NodeId target, int limit) {
      return read("hints", null, () -> live().hints().oldest(target, limit).join());
    }

    @Override
    public CompletableFuture<Void> remove(List<Hint> hints) {
      List<Hint> delivered = List.copyOf(hints);
      return write("hint removal", null, false, s -> s.hints().remove(delivered));
    }

    @Override
    public long pending(NodeId target) {
      return live().hints().pending(target);
    }

    @Override
    public Set<NodeId> targets() {
      return live().hints().targets();
    }
  }

  private final class Acceptors implements AcceptorStore {
    @Override
    public CompletableFuture<Reply> step(
        Key key, Function<AcceptorState, AcceptorState.Transition> transition) {
      return step(key, transition, true);
    }

    /** Written without a sync: durable with the next write that is, or at the next sync. */
    @Override
    public CompletableFuture<Reply> stepBeforeSync(
        Key key, Function<AcceptorState, AcceptorState.Transition> transition) {
      return step(key, transition, false);
    }

    @Override
    public CompletableFuture<Void> sync() {
      return write("paxos sync", null, true, s -> CompletableFuture.completedFuture(null));
    }

    private CompletableFuture<Reply> step(
        Key key, Function<AcceptorState, AcceptorState.Transition> transition, boolean durable) {
      // What the step accepted, heard once its write is durable (not when a power cut replays it).
      AtomicReference<Proposal> accepted = new AtomicReference<>();
      Function<AcceptorState, AcceptorState.Transition> heard =
          state -> {
            AcceptorState.Transition next = transition.apply(state);
            Optional<Proposal> proposal = next.state().accepted();
            accepted.set(proposal.equals(state.accepted()) ? null : proposal.orElse(null));
            return next;
          };
      return write("paxos step", key, durable, s -> s.acceptors().step(key, heard))
          .thenApply(
              reply -> {
                Proposal proposal = accepted.get();
                if (proposal != null) {
                  // Right after the write, in the simulation's one thread: it is the last made.
                  disk.onceSynced(() -> disk.accepted(key, proposal));
                }
                return reply;
              });
    }

    @Override
    public CompletableFuture<AcceptorState> state(Key key) {
      return read("paxos state", key, () -> live().acceptors().state(key).join());
    }

    @Override
    public Version floor() {
      return live().acceptors().floor();
    }

    @Override
    public CompletableFuture<Version> raiseFloor(Version floor) {
      return write("paxos floor", null, true, s -> s.acceptors().raiseFloor(floor));
    }

    @Override
    public CompletableFuture<List<Key>> keys(Optional<Key> after, int limit) {
      return read("paxos keys", null, () -> live().acceptors().keys(after, limit).join());
    }

    @Override
    public CompletableFuture<Integer> purge(Map<Key, Optional<Record>> stored) {
      Map<Key, Optional<Record>> given = Map.copyOf(stored);
      return write("paxos purge", null, true, s -> s.acceptors().purge(given));
    }
  }
}
