package io.kvorum.node.antientropy;

/**
 * What the hash trees know of each stored record, by the 64-bit hash of its key: the record's
 * version, its digest, when it dies (for purges) and which peers' trees hold it. Open addressing
 * with linear probing over primitive arrays (about 40 bytes a record at most three quarters full),
 * so a million records cost tens of megabytes, not the hundreds a map of objects would. Not
 * thread-safe: {@link HashTrees} guards it.
 */
final class DigestTable {
  private static final int MIN_CAPACITY = 1 << 10;

  private long[] keys;
  private long[] versions;
  private long[] digests;
  private long[] deaths;
  private long[] peers;
  private int size;

  DigestTable() {
    allocate(MIN_CAPACITY);
  }

  private void allocate(int capacity) {
    keys = new long[capacity];
    versions = new long[capacity];
    digests = new long[capacity];
    deaths = new long[capacity];
    peers = new long[capacity];
  }

  /** 0 marks an empty slot, so the one key hash that is 0 is stored as 1. */
  private static long stored(long keyHash) {
    return keyHash == 0 ? 1 : keyHash;
  }

  private int slotOf(long key) {
    int mask = keys.length - 1;
    int slot = (int) (mix(key) & mask);
    while (keys[slot] != 0 && keys[slot] != key) {
      slot = (slot + 1) & mask;
    }
    return slot;
  }

  /** The key hashes are uniform already; this spreads the low bits the slot index uses. */
  private static long mix(long h) {
    return h ^ (h >>> 29) ^ (h >>> 47);
  }

  int size() {
    return size;
  }

  /** The slot holding {@code keyHash}, or -1. */
  int find(long keyHash) {
    int slot = slotOf(stored(keyHash));
    return keys[slot] == 0 ? -1 : slot;
  }

  long version(int slot) {
    return versions[slot];
  }

  long digest(int slot) {
    return digests[slot];
  }

  long peers(int slot) {
    return peers[slot];
  }

  long diesAt(int slot) {
    return deaths[slot];
  }

  long keyHash(int slot) {
    return keys[slot];
  }

  int capacity() {
    return keys.length;
  }

  /** Sets the entry of {@code keyHash}, adding it if absent. */
  void put(long keyHash, long version, long digest, long diesAt, long peerMask) {
    long key = stored(keyHash);
    int slot = slotOf(key);
    if (keys[slot] == 0) {
      if ((size + 1) * 4L > keys.length * 3L) {
        grow();
        slot = slotOf(key);
      }
      keys[slot] = key;
      size++;
    }
    versions[slot] = version;
    digests[slot] = digest;
    deaths[slot] = diesAt;
    peers[slot] = peerMask;
  }

  /** Removes the entry in {@code slot}, shifting back the entries probed past it. */
  void remove(int slot) {
    int mask = keys.length - 1;
    int hole = slot;
    int next = (hole + 1) & mask;
    while (keys[next] != 0) {
      int home = (int) (mix(keys[next]) & mask);
      // The entry at next may fill the hole unless its home lies cyclically in (hole, next].
      boolean movable =
          hole <= next ? (home <= hole || home > next) : (home <= hole && home > next);
      if (movable) {
        move(next, hole);
        hole = next;
      }
      next = (next + 1) & mask;
    }
    keys[hole] = 0;
    size--;
  }

  private void move(int from, int to) {
    keys[to] = keys[from];
    versions[to] = versions[from];
    digests[to] = digests[from];
    deaths[to] = deaths[from];
    peers[to] = peers[from];
  }

  private void grow() {
    long[] oldKeys = keys;
    long[] oldVersions = versions;
    long[] oldDigests = digests;
    long[] oldDeaths = deaths;
    long[] oldPeers = peers;
    allocate(oldKeys.length * 2);
    for (int i = 0; i < oldKeys.length; i++) {
      if (oldKeys[i] != 0) {
        int slot = slotOf(oldKeys[i]);
        keys[slot] = oldKeys[i];
        versions[slot] = oldVersions[i];
        digests[slot] = oldDigests[i];
        deaths[slot] = oldDeaths[i];
        peers[slot] = oldPeers[i];
      }
    }
  }
}
