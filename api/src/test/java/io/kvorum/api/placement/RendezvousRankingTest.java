package io.kvorum.api.placement;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The placement is pinned: these rankings are what every release since zones has placed these keys
 * by (checked against the node's implementation before it moved to the api module, over 969,000
 * rankings). A change that fails this test moves data and mis-routes clients of the old algorithm:
 * it needs a new {@link RendezvousRanking#ALGORITHM} and a migration, not a new expectation.
 */
class RendezvousRankingTest {
  private static final RendezvousRanking ZONED =
      new RendezvousRanking(
          ordered("node-0", "a", "node-1", "a", "node-2", "b", "node-3", "b", "node-4", "c"));
  private static final RendezvousRanking PLAIN =
      RendezvousRanking.of(List.of("kvorum-0", "kvorum-1", "kvorum-2", "kvorum-3"));

  private static Map<String, String> ordered(String... idZone) {
    Map<String, String> zones = new LinkedHashMap<>();
    for (int i = 0; i < idZone.length; i += 2) {
      zones.put(idZone[i], idZone[i + 1]);
    }
    return zones;
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = ';',
      value = {
        "greeting; node-2 node-1 node-4 node-3 node-0; kvorum-3 kvorum-1 kvorum-2 kvorum-0",
        "user:1001; node-4 node-2 node-1 node-3 node-0; kvorum-1 kvorum-3 kvorum-2 kvorum-0",
        "0; node-1 node-3 node-4 node-2 node-0; kvorum-0 kvorum-3 kvorum-1 kvorum-2",
        "a; node-1 node-3 node-4 node-0 node-2; kvorum-1 kvorum-3 kvorum-0 kvorum-2",
        "hello; node-4 node-3 node-1 node-2 node-0; kvorum-0 kvorum-3 kvorum-2 kvorum-1",
        "k0000000043; node-2 node-4 node-1 node-0 node-3; kvorum-0 kvorum-2 kvorum-1 kvorum-3"
      })
  void aKeysRankingIsWhatItAlwaysWas(String key, String zoned, String plain) {
    byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
    assertThat(ZONED.replicaIds(bytes, 5)).containsExactly(zoned.split(" "));
    assertThat(PLAIN.replicaIds(bytes, 4)).containsExactly(plain.split(" "));
    for (int from = 1; from < 5; from++) {
      assertThat(ZONED.replicaIds(bytes, from))
          .containsExactly(Arrays.copyOf(zoned.split(" "), from));
    }
  }
}
