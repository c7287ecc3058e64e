package io.kvorum.node.core;

import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.Objects;
import java.util.Optional;

/**
 * One stored version of a key: a value or a tombstone, the version of the write that made it, an
 * optional absolute expiry, and how many replicas the write went to.
 *
 * <p>Records are totally ordered by {@link #LAST_WRITER_WINS}; every replica keeps the greatest
 * record it has seen, so replicas converge whatever order writes arrive in. The value array is
 * owned by the record and must not be modified.
 *
 * @param version the version of the write
 * @param tombstone whether this records a delete (then {@code value} is empty)
 * @param expiresAtMillis Unix milliseconds after which a value reads as absent; {@code 0} for never
 * @param value the value bytes, empty for a tombstone
 * @param replicas the {@code from} of the write: the record belongs on the first {@code replicas}
 *     nodes of its key's ranking (anti-entropy compares exactly those), 1..{@value #MAX_REPLICAS}
 */
public record Record(
    Version version, boolean tombstone, long expiresAtMillis, byte[] value, int replicas) {
  public static final long NO_EXPIRY = 0;

  /** The largest replica count a record can carry (one byte on disk). */
  public static final int MAX_REPLICAS = 255;

  private static final byte[] EMPTY = new byte[0];

  /**
   * Last-writer-wins: the higher version wins; at equal versions a tombstone beats a value, then
   * the larger value bytes (unsigned) win, then the later expiry, then the larger replica count.
   * Deterministic on every replica, and consistent with {@link #equals}.
   */
  public static final Comparator<Record> LAST_WRITER_WINS =
      Comparator.comparing(Record::version)
          .thenComparing((Record r) -> r.tombstone())
          .thenComparing(Record::value, Arrays::compareUnsigned)
          .thenComparingLong(Record::expiresAtMillis)
          .thenComparingInt(Record::replicas);

  public Record {
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(value, "value");
    if (tombstone && (value.length > 0 || expiresAtMillis != NO_EXPIRY)) {
      throw new IllegalArgumentException("a tombstone has neither value nor expiry");
    }
    if (expiresAtMillis < 0) {
      throw new IllegalArgumentException("negative expiry: " + expiresAtMillis);
    }
    if (replicas < 1 || replicas > MAX_REPLICAS) {
      throw new IllegalArgumentException(
          "replicas must be 1.." + MAX_REPLICAS + ", got " + replicas);
    }
  }

  /** A value written to {@code replicas} nodes. */
  public static Record value(Version version, byte[] value, long expiresAtMillis, int replicas) {
    return new Record(version, false, expiresAtMillis, value, replicas);
  }

  /** A delete written to {@code replicas} nodes. */
  public static Record tombstone(Version version, int replicas) {
    return new Record(version, true, NO_EXPIRY, EMPTY, replicas);
  }

  /** A value without expiry on a single replica: shorthand for tests and tools. */
  public static Record value(Version version, byte[] value) {
    return value(version, value, NO_EXPIRY, 1);
  }

  /** An expiring value on a single replica: shorthand for tests and tools. */
  public static Record value(Version version, byte[] value, long expiresAtMillis) {
    return value(version, value, expiresAtMillis, 1);
  }

  /** A delete on a single replica: shorthand for tests and tools. */
  public static Record tombstone(Version version) {
    return tombstone(version, 1);
  }

  /** The winner of {@code a} and {@code b} under {@link #LAST_WRITER_WINS}; either may be null. */
  public static Record newest(Record a, Record b) {
    if (a == null) {
      return b;
    }
    if (b == null) {
      return a;
    }
    return LAST_WRITER_WINS.compare(a, b) >= 0 ? a : b;
  }

  /**
   * The winner of {@code records} under {@link #LAST_WRITER_WINS} (the replicas' answers of one
   * key, an absent answer empty); empty if none holds a record.
   */
  public static Optional<Record> newest(Collection<Optional<Record>> records) {
    Record newest = null;
    for (Optional<Record> record : records) {
      newest = newest(newest, record.orElse(null));
    }
    return Optional.ofNullable(newest);
  }

  /** Whether this record beats {@code other} (which may be null) under last-writer-wins. */
  public boolean supersedes(Record other) {
    return other == null || LAST_WRITER_WINS.compare(this, other) > 0;
  }

  public boolean hasExpiry() {
    return expiresAtMillis != NO_EXPIRY;
  }

  public boolean isExpired(long nowMillis) {
    return hasExpiry() && nowMillis >= expiresAtMillis;
  }

  /**
   * From when this record reads as absent: the write time of a tombstone, the expiry of an expiring
   * value, {@link Long#MAX_VALUE} for a value that never expires. Storage purges records that have
   * been dead for a grace period.
   */
  public long diesAtMillis() {
    if (tombstone) {
      return version.physicalMillis();
    }
    return hasExpiry() ? expiresAtMillis : Long.MAX_VALUE;
  }

  /** Whether a read at {@code nowMillis} sees a value: not a tombstone and not expired. */
  public boolean isLive(long nowMillis) {
    return !tombstone && !isExpired(nowMillis);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Record r
        && version.equals(r.version)
        && tombstone == r.tombstone
        && expiresAtMillis == r.expiresAtMillis
        && replicas == r.replicas
        && Arrays.equals(value, r.value);
  }

  @Override
  public int hashCode() {
    return Objects.hash(version, tombstone, expiresAtMillis, Arrays.hashCode(value), replicas);
  }

  @Override
  public String toString() {
    return tombstone
        ? "Record[tombstone@" + version + ", on " + replicas + "]"
        : "Record[@"
            + version
            + ", "
            + value.length
            + " bytes"
            + (hasExpiry() ? ", expires " + expiresAtMillis : "")
            + ", on "
            + replicas
            + "]";
  }
}
