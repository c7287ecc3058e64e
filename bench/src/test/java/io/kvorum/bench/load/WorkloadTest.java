package io.kvorum.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.api.placement.RendezvousRanking;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** With routing, each request goes to the node that holds its key's first replica. */
class WorkloadTest {
  private static final Pattern KEY = Pattern.compile("id=(k\\d{10})");
  private static final List<String> NODES = List.of("node-0", "node-1", "node-2");

  private static String key(Request request) {
    Matcher matcher = KEY.matcher(new String(request.bytes(), StandardCharsets.US_ASCII));
    assertThat(matcher.find()).isTrue();
    return matcher.group(1);
  }

  @Test
  void aRoutedRequestsKeyHasItsFirstReplicaOnTheConnectionsNode() {
    Workload workload = new Workload(3_000, 16, 1, 2, 90, 100);
    RendezvousRanking ranking = RendezvousRanking.of(NODES);
    for (String phase : List.of("put", "get", "mixed")) {
      RequestSource source = workload.source(phase, NODES);
      Set<String> keys = new HashSet<>();
      for (int seq = 0; seq < 30_000; seq++) {
        int connection = seq % 7;
        String key = key(source.next(seq, connection));
        keys.add(key);
        assertThat(ranking.replicaIds(key.getBytes(StandardCharsets.UTF_8), 1))
            .containsExactly(NODES.get(connection % NODES.size()));
      }
      assertThat(keys).as("keys drawn in %s", phase).hasSizeGreaterThan(2_900);
    }
  }

  @Test
  void anUnroutedRequestsKeyIsAnyKey() {
    RequestSource source = new Workload(100, 16, 1, 2, 90, 100).source("get", null);
    Set<String> keys = new HashSet<>();
    for (int seq = 0; seq < 3_000; seq++) {
      keys.add(key(source.next(seq, 0)));
    }
    assertThat(keys).hasSize(100);
  }
}
