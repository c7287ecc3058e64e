package io.kvorum.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvorum.api.Consistency;
import io.kvorum.api.KvorumClient;
import io.kvorum.api.KvorumClientException;
import io.kvorum.node.testing.FeedReader;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Three node containers under continuous client load at quorum, broken on purpose in the ways only
 * containers can: the cgroup freezer, a Docker network cut, a full volume. After each step the
 * history is checked: every write acknowledged at quorum is readable at quorum with its latest
 * acknowledged value (or a later attempt), and deleted keys stay deleted.
 *
 * <p>What a SIGKILL, a SIGTERM, a restart on the same volume, a wiped volume or a skewed clock do
 * to a cluster is shown on real processes (ClusterProcessIT, RestartsProcessIT, NodeProcessIT,
 * AntiEntropyProcessIT, ClockSkewProcessIT) and, for the image, by ChartClusterIT (a pod killed and
 * one deleted gracefully, each back on its claim); docs/testing.md says which shows what.
 *
 * <p>Each step's keys are watched by two change feeds opened before its load, on node-0 and on
 * node-2 (the node each step breaks): each must show every acknowledged write, in each key's order,
 * whatever the step did to node-2 (SPEC §12).
 *
 * <p>One cluster goes through the steps in order, node-2's data on a 64 MiB tmpfs throughout (only
 * the full-disk step fills it). Each step starts from three nodes up with no hint pending and
 * leaves them so, but the last, which stops two nodes to read the third alone; once a step failed,
 * the later ones are reported skipped.
 */
@RequiresDocker
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
// Alone in this module (junit-platform.properties): a frozen node must cost its quorums no more
// than the request timeout, which another class's containers on the same cores could blur.
@Isolated
class FaultScenariosIT {
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(1);
  private static final Consistency ALL_THREE = Consistency.of(3, 3);

  private DockerCluster cluster;
  private QuorumLoad load;
  private String scenario;

  /** The prefix of the step's keys ({@link QuorumLoad}): each step's history is checked alone. */
  private String keys;

  private int steps;

  /** Change feeds on the step's keys (SPEC §12), opened before its load: on node-0 and node-2. */
  private final List<FeedReader> feeds = new ArrayList<>();

  /** A step began and did not end: the cluster may not be what the next step starts from. */
  private boolean broken;

  @BeforeAll
  void start() {
    cluster =
        DockerCluster.start(
            3, Map.of("KVORUM_REQUEST_TIMEOUT", REQUEST_TIMEOUT.toMillis() + "ms"), Set.of(2));
  }

  @BeforeEach
  void step(TestInfo test) {
    scenario = test.getTestMethod().orElseThrow().getName();
    Assumptions.assumeFalse(broken, "an earlier step failed, leaving the cluster in another state");
    broken = true;
    keys = "step" + ++steps + "-w";
    for (int node : List.of(0, 2)) {
      FeedReader feed =
          FeedReader.open(
              URI.create("http://127.0.0.1:" + cluster.node(node).httpPort() + "/"),
              "start=" + keys + "&end=step" + steps + "-x");
      assertThat(feed.status()).as("node-%d's feed", node).isEqualTo(200);
      feeds.add(feed);
    }
    load = new QuorumLoad(cluster, 4, 100, keys);
  }

  @AfterEach
  void stopLoad() throws InterruptedException {
    if (load != null) {
      load.close();
      load = null;
    }
    feeds.forEach(FeedReader::close);
    feeds.clear();
  }

  @AfterAll
  void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  @Order(2)
  void aFrozenNodeCostsQuorumsNoMoreThanTheRequestTimeout() throws Exception {
    load.awaitAcknowledged(QuorumLoad.PHASE);
    load.avoid(2);
    long failuresBefore = load.failures();
    long frozenAt = QuorumLoad.now();
    cluster.node(2).pause();
    // The window measured: five request timeouts, so that writes whose copy went to the frozen
    // node had to be answered without it over and over.
    Thread.sleep(REQUEST_TIMEOUT.multipliedBy(5).toMillis());
    long served = load.acknowledgedSince(frozenAt);
    long slowest = load.maxLatencyNanosSince(frozenAt);
    cluster.node(2).unpause();
    if (load.failures() > failuresBefore) {
      System.out.println(cluster.node(0).logs());
    }
    System.out.printf(
        "[%s] while node-2 was frozen: %d quorum writes acknowledged, slowest %d ms%n",
        scenario, served, slowest / 1_000_000);
    assertThat(served).as("quorum writes acknowledged while a node is frozen").isGreaterThan(100);
    assertThat(Duration.ofNanos(slowest))
        .as("the slowest of them")
        .isLessThan(REQUEST_TIMEOUT.plusMillis(1500));
    assertThat(load.failures() - failuresBefore)
        .as("requests that failed meanwhile: %s", load.failureReasons())
        .isLessThan(5);
    load.use(2);
    load.awaitAcknowledged(QuorumLoad.PHASE);
    History history = load.stop();
    cluster.awaitHintsDelivered(2);
    check(history, cluster.node(0));
    // The image's HEALTHCHECK (docker/healthcheck) says so too, the thawed node included.
    for (int i = 0; i < 3; i++) {
      NodeContainer node = cluster.node(i);
      Awaitility.await(node.name() + " healthy")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofSeconds(1))
          .until(node::health, "healthy"::equals);
    }
    broken = false;
  }

  /**
   * Each node loads RocksDB's native library from the image's {@code /opt/kvorum/native}, where the
   * build unpacked it, and inflates no copy of it into the temporary directory at its start.
   */
  @Test
  @Order(0)
  void everyNodeLoadsRocksDbsLibraryFromTheImageNotFromACopy() throws Exception {
    for (int i = 0; i < cluster.size(); i++) {
      String maps = cluster.node(i).run("cat", "/proc/1/maps").getStdout();
      assertThat(maps)
          .contains("/opt/kvorum/native/librocksdbjni-linux")
          .doesNotContain("/tmp/kvorum-rocksdb-");
    }
    broken = false;
  }

  /**
   * Issue 11, part 1: node-2's disk filled to the last byte under quorum load. Quorum writes go on
   * through every node (node-2's copies are hinted); a write that needs node-2 is 507; reads and
   * node-2's readiness go on, and its log says so once. Once space is freed it takes writes again
   * without a restart, gets its hints, and nothing acknowledged is lost.
   */
  @Test
  @Order(1)
  void aFullDiskOnOneNodeIs507ForWritesThatNeedItAndHealsOnceSpaceIsFreed() throws Exception {
    load.awaitAcknowledged(QuorumLoad.PHASE);
    NodeContainer full = cluster.node(2);
    long failuresBefore = load.failures();
    full.fillDisk();
    load.awaitAcknowledged(QuorumLoad.FAULT_PHASE);
    try (KvorumClient viaFull = full.client();
        KvorumClient via0 = cluster.node(0).client()) {
      // The node's log file has space set aside (RocksDB preallocates it): writes that need
      // node-2 go on until that is used up too.
      byte[] large = new byte[1 << 20];
      KvorumClientException refused = null;
      for (int i = 0; i < 100 && refused == null; i++) {
        try {
          via0.put(("needs-all-three-" + i).getBytes(UTF_8), large, ALL_THREE);
        } catch (KvorumClientException e) {
          refused = e;
        }
      }
      assertThat(refused).as("a 3/3 write refused within 100 MiB on a 64 MiB disk").isNotNull();
      assertThat(refused.status()).as(refused.getMessage()).isEqualTo(507);
      assertThat(refused.detail()).contains("disk is full");
      viaFull.put("through-the-full-node".getBytes(UTF_8), "q".getBytes(UTF_8), QuorumLoad.QUORUM);
      assertThat(via0.get("through-the-full-node".getBytes(UTF_8), ALL_THREE)).isPresent();
      assertThat(viaFull.ready()).as("node-2 ready: a full disk does not stop reads").isTrue();
    }
    assertThat(load.failures() - failuresBefore)
        .as("quorum requests that failed while node-2 was full: %s", load.failureReasons())
        .isLessThan(5);
    String whileFull = full.logs();
    assertThat(count(whileFull, "the disk is full"))
        .as("node-2's warnings:%n%s", warnings(whileFull))
        .isEqualTo(1);

    full.freeDisk();
    try (KvorumClient via0 = cluster.node(0).client()) {
      Awaitility.await("a write that needs node-2, once its disk has space")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(500))
          .ignoreExceptions()
          .until(
              () -> {
                via0.put("needs-all-three".getBytes(UTF_8), "y".getBytes(UTF_8), ALL_THREE);
                return true;
              });
    }
    History history = load.stop();
    cluster.awaitHintsDelivered(2);
    check(history, cluster.node(2));
    String healed = full.logs();
    assertThat(count(healed, "disk space is back"))
        .as("node-2's warnings:%n%s", warnings(healed))
        .isEqualTo(1);
    assertThat(count(healed, "the disk is full"))
        .as("node-2's warnings:%n%s", warnings(healed))
        .isEqualTo(1);
    broken = false;
  }

  /** The last step: it ends with node-0 and node-1 stopped, to read node-2 alone. */
  @Test
  @Order(3)
  void aPartitionedNodeAnswers504AndConvergesAfterHealing() throws Exception {
    load.awaitAcknowledged(QuorumLoad.PHASE);
    load.avoid(2);
    cluster.node(2).disconnect();
    load.awaitAcknowledged(QuorumLoad.FAULT_PHASE);
    try (KvorumClient isolated = cluster.node(2).client()) {
      assertNotEnoughReplicas(
          () -> isolated.put("isolated".getBytes(UTF_8), "x".getBytes(UTF_8), QuorumLoad.QUORUM));
      assertNotEnoughReplicas(
          () -> isolated.get((keys + "0/1").getBytes(UTF_8), QuorumLoad.QUORUM));
    }
    cluster.node(2).reconnect();
    load.use(2);
    load.awaitAcknowledged(QuorumLoad.PHASE);
    History history = load.stop();
    cluster.awaitHintsDelivered(2);
    // Also node-2's feed, whose consumer stayed connected through the cut (the access network).
    check(history, cluster.node(1));

    // Every replica converged: with the other two stopped, node-2 alone has every write.
    cluster.node(0).stop();
    cluster.node(1).stop();
    try (KvorumClient alone = cluster.node(2).client()) {
      report("node-2 alone after healing", history.verify(alone, Consistency.of(1, 3)));
    }
  }

  private static long count(String log, String fragment) {
    return log.lines().filter(line -> line.contains(fragment)).count();
  }

  /** A log's warnings and errors, and what the node said of its disk space, for a failed check. */
  private static String warnings(String log) {
    return log.lines()
        .filter(
            line ->
                line.contains(" WARN ") || line.contains(" ERROR ") || line.contains("SpaceWatch"))
        .collect(Collectors.joining("\n"));
  }

  /** Every acknowledged write is read at quorum, and shown by both feeds in each key's order. */
  private void check(History history, NodeContainer reader) {
    try (KvorumClient client = reader.client()) {
      report("read at 2/3 through " + reader.name(), history.verify(client, QuorumLoad.QUORUM));
    }
    history.assertShownBy(feeds.get(0), "[" + scenario + "] node-0's feed");
    history.assertShownBy(feeds.get(1), "[" + scenario + "] node-2's feed");
  }

  private void report(String how, History.Verdict verdict) {
    System.out.printf(
        "[%s] %s: checked %d keys' latest acknowledged writes, %d lost%n",
        scenario, how, verdict.checked(), verdict.lost().size());
    assertThat(verdict.checked()).as("acknowledged writes checked").isGreaterThan(50);
    assertThat(verdict.lost()).as("acknowledged writes lost").isEmpty();
  }

  private static void assertNotEnoughReplicas(Runnable request) {
    assertThatThrownBy(request::run)
        .isInstanceOfSatisfying(
            KvorumClientException.class, e -> assertThat(e.status()).isEqualTo(504));
  }
}
