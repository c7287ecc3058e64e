package io.kvorum.node.topology;

import java.util.HashMap;
import java.util.Map;

/**
 * The HTTP address a member advertises to clients and operator tools ({@code
 * --advertise-http-address}), stamped by the member itself when it set it: of two addresses of one
 * member, the one with the higher stamp is the newer. Only the member writes its own, so merging
 * two maps entry by entry, the higher stamp winning, converges on every node whatever the order
 * (docs/decisions/members-advertise-their-http-address-in-the-cluster-state.md).
 *
 * @param address {@code host:port}
 * @param stamp when the member set it, Unix milliseconds; higher is newer
 */
public record Advertised(String address, long stamp) {
  public Advertised {
    if (address == null || address.isBlank()) {
      throw new IllegalArgumentException("an advertised address is host:port, not blank");
    }
  }

  /** The newer of the two; of two with the same stamp, the address that sorts last. */
  public static Advertised newer(Advertised a, Advertised b) {
    if (a == null || b == null) {
      return a == null ? b : a;
    }
    if (a.stamp != b.stamp) {
      return a.stamp > b.stamp ? a : b;
    }
    return a.address.compareTo(b.address) >= 0 ? a : b;
  }

  /** Every entry of {@code a} and {@code b}, the newer where both have one. */
  public static <K> Map<K, Advertised> merge(Map<K, Advertised> a, Map<K, Advertised> b) {
    Map<K, Advertised> merged = new HashMap<>(a);
    b.forEach((id, address) -> merged.merge(id, address, Advertised::newer));
    return merged;
  }
}
