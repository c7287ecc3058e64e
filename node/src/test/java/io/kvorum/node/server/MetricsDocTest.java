package io.kvorum.node.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.api.KvorumApi;
import io.kvorum.api.KvorumClient;
import io.kvorum.node.testing.LocalCluster;
import io.kvorum.node.testing.RepositoryScripts;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/operations.md}'s table of metrics cannot go stale: every {@code kvorum_} metric a
 * node of a cluster exposes, once it has served writes, reads, a conditional write and a range, is
 * documented there (by name, or by a documented prefix such as {@code kvorum_executor_*}).
 */
class MetricsDocTest {
  private static final Pattern FAMILY =
      Pattern.compile("^# TYPE (kvorum_\\w+) ", Pattern.MULTILINE);
  private static final Pattern DOCUMENTED = Pattern.compile("`(kvorum_[a-z_]+\\*?)`");

  @Test
  void everyMetricANodeExposesIsDocumentedInOperationsMd() throws Exception {
    Set<String> exposed = new TreeSet<>();
    try (LocalCluster cluster = LocalCluster.start(3)) {
      KvorumClient client = cluster.client(1);
      client.put("k", "v");
      client.getUtf8("k");
      client.putIfAbsent("created".getBytes(StandardCharsets.UTF_8), new byte[] {1});
      client.rangeAll("a".getBytes(StandardCharsets.UTF_8), "z".getBytes(StandardCharsets.UTF_8));
      String scraped =
          new String(
              client
                  .send(
                      HttpRequest.newBuilder(client.baseUri().resolve(KvorumApi.PATH_METRICS))
                          .GET())
                  .body(),
              StandardCharsets.UTF_8);
      Matcher family = FAMILY.matcher(scraped);
      while (family.find()) {
        exposed.add(family.group(1));
      }
    }
    String doc = Files.readString(RepositoryScripts.repository().resolve("docs/operations.md"));
    List<String> documented = new ArrayList<>();
    Matcher name = DOCUMENTED.matcher(doc);
    while (name.find()) {
      documented.add(name.group(1));
    }

    assertThat(exposed).as("metrics a node exposes").isNotEmpty();
    assertThat(exposed.stream().filter(f -> !documented(f, documented)).toList())
        .as("metrics missing from docs/operations.md")
        .isEmpty();
  }

  private static boolean documented(String family, List<String> names) {
    // A timer's or a summary's maximum is a family of its own, documented with the timer.
    String base = family.endsWith("_max") ? family.substring(0, family.length() - 4) : family;
    return documentedAs(family, names) || documentedAs(base, names);
  }

  private static boolean documentedAs(String family, List<String> names) {
    for (String name : names) {
      if (name.endsWith("*")
          ? family.startsWith(name.substring(0, name.length() - 1))
          : family.equals(name) || (family + "_total").equals(name)) {
        return true;
      }
    }
    return false;
  }
}
