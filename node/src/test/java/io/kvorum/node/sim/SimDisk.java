package io.kvorum.node.sim;

import io.kvorum.node.consensus.InMemoryAcceptorStore;
import io.kvorum.node.consensus.round.Proposal;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.Record;
import io.kvorum.node.storage.memory.InMemoryHintStore;
import io.kvorum.node.storage.memory.InMemoryStorageEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * A simulated node's disk, which outlives its incarnations: what the node wrote (its records, hints
 * and acceptor states), what of it reached the platter, and what a crash leaves.
 *
 * <p>It keeps the live stores the running node reads and writes, and the log of every write in
 * order: those synced (durable) and, after them, those not yet synced. A write made to be durable
 * at once (an acceptor's step, any write under {@code --sync-writes true}) is synced with
 * everything before it, as an fsync of a write-ahead log is; the others wait for the next {@link
 * #sync}. A crash of the process alone ({@link #processKilled}) loses nothing: the operating system
 * still holds what was written. A power cut ({@link #powerCut}) keeps the synced writes and a
 * seeded prefix of the others (a log is replayed up to where its tail was torn), and the live
 * stores are rebuilt from them, as a restarted engine replays its log; the changes those writes
 * logged keep their stamps, as the keys of RocksDB's log do.
 *
 * <p>A full disk refuses every write until it has room again. Not thread-safe: the simulation's
 * thread alone uses it.
 */
final class SimDisk {
  /**
   * What the stores of one incarnation hold: records (with the changes they logged, stamped by the
   * node's wall clock), hints and acceptor states.
   */
  record Stores(
      InMemoryStorageEngine records, InMemoryHintStore hints, InMemoryAcceptorStore acceptors) {
    static Stores empty(LongSupplier wallMillis) {
      return new Stores(
          new InMemoryStorageEngine(wallMillis),
          new InMemoryHintStore(),
          new InMemoryAcceptorStore());
    }
  }

  private final Random random;
  private final LongSupplier wallMillis;
  private final List<Function<Stores, ?>> synced = new ArrayList<>();
  private final List<Function<Stores, ?>> unsynced = new ArrayList<>();
  private final List<long[]> unsyncedStamps = new ArrayList<>();

  /**
   * What to do once each unsynced write is durable (null for most), in {@link #unsynced}' order.
   */
  private final List<Runnable> onceSynced = new ArrayList<>();

  private Stores live;
  private BiConsumer<Key, Record> applied = (key, record) -> {};
  private BiConsumer<Key, Proposal> accepted = (key, proposal) -> {};
  private boolean full;
  private long lost;

  /**
   * @param wallMillis the node's wall clock, Unix milliseconds
   */
  SimDisk(Random random, LongSupplier wallMillis) {
    this.random = random;
    this.wallMillis = wallMillis;
    this.live = Stores.empty(wallMillis);
  }

  /** The stores as the running node sees them: every write made, synced or not. */
  Stores live() {
    return live;
  }

  /**
   * Applies {@code write} to the live stores and logs it: synced at once (with every write before
   * it) if {@code durable}, else at the next {@link #sync}.
   *
   * @return what the write answered
   */
  <T> T write(Function<Stores, T> write, boolean durable) {
    long logged = live.records().newestChangeStamp();
    T answer = write.apply(live);
    unsynced.add(write);
    // The stamps of the changes it logged (taken in one go, consecutive): lost with it, if it is.
    unsyncedStamps.add(new long[] {logged, live.records().newestChangeStamp()});
    onceSynced.add(null);
    if (durable) {
      sync();
    }
    return answer;
  }

  /** Runs {@code then} once the last write made is durable: now, if it is already. */
  void onceSynced(Runnable then) {
    if (unsynced.isEmpty()) {
      then.run();
    } else {
      onceSynced.set(onceSynced.size() - 1, then);
    }
  }

  /** Makes every write so far durable; whether there was any to sync. */
  boolean sync() {
    if (unsynced.isEmpty()) {
      return false;
    }
    synced.addAll(unsynced);
    unsynced.clear();
    unsyncedStamps.clear();
    runSynced(onceSynced.size());
    return true;
  }

  /** Runs what waited for the first {@code count} unsynced writes, now durable, and forgets all. */
  private void runSynced(int count) {
    List<Runnable> waiting =
        onceSynced.subList(0, count).stream().filter(Objects::nonNull).toList();
    onceSynced.clear();
    waiting.forEach(Runnable::run);
  }

  /** The process died (SIGKILL): what it wrote stays in the operating system's cache, then disk. */
  void processKilled() {
    sync();
  }

  /**
   * The machine lost power: the synced writes survive, and of the others a seeded prefix; the live
   * stores are what replaying them gives.
   *
   * @return how many writes were lost
   */
  int powerCut() {
    int kept = random.nextInt(unsynced.size() + 1);
    int lostNow = unsynced.size() - kept;
    synced.addAll(unsynced.subList(0, kept));
    List<long[]> lostStamps = List.copyOf(unsyncedStamps.subList(kept, unsyncedStamps.size()));
    unsynced.clear();
    unsyncedStamps.clear();
    runSynced(kept);
    Stores before = live;
    live = Stores.empty(wallMillis);
    for (Function<Stores, ?> write : synced) {
      Object unused = write.apply(live);
    }
    // The replay logged its changes anew; the log on disk keeps them as they were stamped.
    live.records()
        .keepChangesOf(
            before.records(),
            stamp -> lostStamps.stream().anyMatch(r -> stamp > r[0] && stamp <= r[1]));
    lost += lostNow;
    return lostNow;
  }

  /** Writes lost to power cuts so far. */
  long lost() {
    return lost;
  }

  /** Tells {@code listener} of every record offered to the records (put, batch, repair). */
  void onApplied(BiConsumer<Key, Record> listener) {
    this.applied = listener;
  }

  /** A record was offered to the live records. */
  void applied(Key key, Record record) {
    applied.accept(key, record);
  }

  /** Tells {@code listener} of every proposal the acceptors accepted, once durable. */
  void onAccepted(BiConsumer<Key, Proposal> listener) {
    this.accepted = listener;
  }

  /** The acceptors accepted {@code proposal}, durably. */
  void accepted(Key key, Proposal proposal) {
    accepted.accept(key, proposal);
  }

  /** Whether the disk is full: writes are refused. */
  boolean full() {
    return full;
  }

  void full(boolean full) {
    this.full = full;
  }
}
