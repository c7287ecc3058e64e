package io.kvorum.node.topology;

import java.util.Locale;

/**
 * A member's part in the cluster (SPEC §8): {@code NORMAL} members own data; a {@code JOINING}
 * member receives writes for the keys it will own while it streams them; a {@code LEAVING} member
 * still owns its keys until they have been streamed to their new owners.
 */
public enum MemberState {
  JOINING,
  NORMAL,
  LEAVING;

  /** The name on the wire, on disk and in {@code /v0/cluster}: {@code joining}, … */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The state named {@code label}. */
  public static MemberState of(String label) {
    return valueOf(label.toUpperCase(Locale.ROOT));
  }
}
