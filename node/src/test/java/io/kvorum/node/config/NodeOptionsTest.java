package io.kvorum.node.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.assertj.core.api.Assumptions.assumeThatCode;

import io.kvorum.node.core.NodeId;
import io.kvorum.node.storage.WalSync;
import io.kvorum.node.topology.Member;
import io.kvorum.node.topology.Topology;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

class NodeOptionsTest {
  private static final int CORES = Runtime.getRuntime().availableProcessors();

  private static NodeConfig config(String... args) {
    NodeOptions options = new NodeOptions();
    new CommandLine(options).parseArgs(args);
    return options.toConfig();
  }

  @Test
  void defaults() {
    NodeConfig config = config("--node-id", "n1");

    assertThat(config.nodeId()).isEqualTo(NodeId.of("n1"));
    assertThat(config.http().host()).isEqualTo("0.0.0.0");
    assertThat(config.http().port()).isEqualTo(8080);
    assertThat(config.http().ioThreads()).isEqualTo(CORES);
    assertThat(config.http().idleTimeout()).isEqualTo(Duration.ofMinutes(5));
    assertThat(config.grpcPort()).isEqualTo(9090);
    assertThat(config.requestTimeout()).isEqualTo(Duration.ofSeconds(1));
    assertThat(config.limits().maxValueBytes()).isEqualTo(16 << 20);
    assertThat(config.limits().maxKeyBytes()).isEqualTo(1024);
    assertThat(config.dataDir().normalize()).isEqualTo(Path.of("./data/n1").normalize());
    assertThat(config.storage().syncWrites()).isEqualTo(WalSync.every(Duration.ofMillis(100)));
    assertThat(config.storage().threads()).isEqualTo(Math.max(2, CORES));
    assertThat(config.storage().queueSize()).isEqualTo(4096);
    assertThat(config.storage().blockCacheBytes()).isEqualTo(128L << 20);
    assertThat(config.storage().maxDiskBytes()).isZero();
    assertThat(config.storage().tombstoneGrace()).isEqualTo(Duration.ofDays(10));
    assertThat(config.storage().sweepInterval()).isEqualTo(Duration.ofMinutes(10));
    assertThat(config.storage().paxosPurgeGrace()).isEqualTo(Duration.ofHours(1));
    assertThat(config.shutdownGrace()).isEqualTo(Duration.ofSeconds(10));
    assertThat(config.maxClockOffset()).isEqualTo(Duration.ofMillis(500));
    assertThat(config.membership().replicationFactor()).isEqualTo(3);
  }

  @Test
  void aChangeRetentionOfZeroCapturesNoChangesAndANegativeOneIsRefused() {
    assertThat(config("--node-id", "n1").storage().changeRetention())
        .isEqualTo(Duration.ofHours(24));
    assertThat(config("--node-id", "n1").storage().capturesChanges()).isTrue();
    assertThat(config("--node-id", "n1", "--change-retention", "0").storage().capturesChanges())
        .isFalse();
    assertThatThrownBy(() -> config("--node-id", "n1", "--change-retention", "-1h"))
        .hasMessageContaining("--change-retention");
  }

  @Test
  void joinIsAHostAndPortAndTheAdvertisedHostNamesThisNode() {
    NodeConfig config =
        config(
            "--node-id",
            "n4",
            "--grpc-port",
            "9094",
            "--join",
            "10.0.0.1:9090",
            "--advertise-host",
            "10.0.0.4");
    assertThat(config.membership().join()).contains(new NodeConfig.Address("10.0.0.1", 9090));
    assertThat(config.topology().member(NodeId.of("n4")).orElseThrow().host())
        .isEqualTo("10.0.0.4");
    assertThat(config("--node-id", "n1", "--join", "[::1]:9090").membership().join())
        .contains(new NodeConfig.Address("::1", 9090));
    assertThat(config("--node-id", "n1").membership().join()).isEmpty();
    assertThatThrownBy(() -> config("--node-id", "n1", "--join", "10.0.0.1"))
        .hasMessageContaining("--join");
    assertThatThrownBy(() -> config("--node-id", "n1", "--join", "10.0.0.1:99999"))
        .hasMessageContaining("--join");
  }

  @Test
  void theAdvertisedHttpAddressDefaultsToTheBoundHostElseTheInterNodeOne() {
    NodeConfig.Http wildcard = config("--node-id", "n1").http();
    NodeConfig.Http bound = config("--node-id", "n1", "--http-host", "127.0.0.2").http();
    NodeConfig.Http given =
        config("--node-id", "n1", "--advertise-http-address", "kvorum-0.kvorum:80").http();

    assertThat(wildcard.advertised(8081, "10.0.0.1")).isEqualTo("10.0.0.1:8081");
    assertThat(bound.advertised(8082, "10.0.0.1")).isEqualTo("127.0.0.2:8082");
    assertThat(given.advertised(8080, "10.0.0.1")).isEqualTo("kvorum-0.kvorum:80");
    assertThat(wildcard.advertised(8080, "::1")).isEqualTo("[::1]:8080");
    assertThatThrownBy(() -> config("--node-id", "n1", "--advertise-http-address", "host"))
        .hasMessageContaining("--advertise-http-address 'host'");
  }

  @Test
  void theGrpcHostIsOptional() {
    assertThat(config("--node-id", "n1").grpcHost()).isEmpty();
    assertThat(config("--node-id", "n1", "--grpc-host", "127.0.0.11").grpcHost())
        .contains("127.0.0.11");
  }

  @Test
  void replicationFactorIsAPositiveCount() {
    assertThat(config("--node-id", "n1", "--replication-factor", "5").membership())
        .isEqualTo(new NodeConfig.Membership(5));
    assertThatThrownBy(() -> config("--node-id", "n1", "--replication-factor", "0"))
        .hasMessageContaining("--replication-factor");
    assertThatThrownBy(() -> config("--node-id", "n1", "--replication-factor", "three"))
        .hasMessageContaining("--replication-factor");
  }

  @Test
  void logsAreTextUnlessJsonIsAskedFor() {
    assumeThat(System.getenv("KVORUM_LOG_FORMAT")).isNull();
    assertThat(logFormat()).isEqualTo(LogFormat.TEXT);
    assertThat(logFormat("--log-format", "json")).isEqualTo(LogFormat.JSON);
    assertThat(logFormat("--log-format", "JSON")).isEqualTo(LogFormat.JSON);
    assertThat(logFormat("--log-format", "json").appender()).isEqualTo("json");
    assertThatThrownBy(() -> logFormat("--log-format", "logfmt"))
        .isInstanceOf(ConfigException.class)
        .hasMessage("--log-format 'logfmt': must be text or json");
  }

  private static LogFormat logFormat(String... args) {
    NodeOptions options = new NodeOptions();
    new CommandLine(options).parseArgs(args);
    return options.logFormat();
  }

  @Test
  void withoutPeersTheClusterIsThisNodeAlone() {
    NodeConfig config = config("--node-id", "n1", "--grpc-port", "9191");

    assertThat(config.topology()).isEqualTo(Topology.single(NodeId.of("n1"), "localhost", 9191));
    assertThat(config.topology().peers()).isEmpty();
  }

  @Test
  void theNodeIdDefaultsToTheHostName() {
    assumeThatCode(() -> InetAddress.getLocalHost()).doesNotThrowAnyException();
    String host = hostName();
    assumeThat(host).matches("[A-Za-z0-9._-]{1,253}");

    assertThat(config().nodeId()).isEqualTo(NodeId.of(host));
  }

  @Test
  void everyFlagIsParsed() {
    NodeConfig config =
        config(
            "--node-id=n2",
            "--http-host=127.0.0.1",
            "--http-port=18080",
            "--grpc-port=19090",
            "--data-dir=/var/lib/kvorum",
            "--peers=n1=10.0.0.1:19090,n2=10.0.0.2:19090,n3=[fd00::3]:19090",
            "--request-timeout=250ms",
            "--sync-writes",
            "--max-value-size=1MiB",
            "--max-key-size=256",
            "--storage-threads=3",
            "--storage-queue=100",
            "--block-cache-size=64MiB",
            "--max-disk-usage=10GiB",
            "--tombstone-grace=3d",
            "--sweep-interval=30s",
            "--paxos-purge-grace=10m",
            "--io-threads=2",
            "--idle-timeout=90s",
            "--shutdown-grace=20s",
            "--max-clock-offset=250ms");

    assertThat(config.nodeId()).isEqualTo(NodeId.of("n2"));
    assertThat(config.http().host()).isEqualTo("127.0.0.1");
    assertThat(config.http().port()).isEqualTo(18080);
    assertThat(config.http().ioThreads()).isEqualTo(2);
    assertThat(config.http().idleTimeout()).isEqualTo(Duration.ofSeconds(90));
    assertThat(config.grpcPort()).isEqualTo(19090);
    assertThat(config.dataDir()).isEqualTo(Path.of("/var/lib/kvorum"));
    assertThat(config.topology().self()).isEqualTo(NodeId.of("n2"));
    assertThat(config.topology().members())
        .containsExactly(
            new Member(NodeId.of("n1"), "10.0.0.1", 19090),
            new Member(NodeId.of("n2"), "10.0.0.2", 19090),
            new Member(NodeId.of("n3"), "fd00::3", 19090));
    assertThat(config.requestTimeout()).isEqualTo(Duration.ofMillis(250));
    assertThat(config.storage().syncWrites()).isEqualTo(WalSync.EVERY_WRITE);
    assertThat(config.limits().maxValueBytes()).isEqualTo(1 << 20);
    assertThat(config.limits().maxKeyBytes()).isEqualTo(256);
    assertThat(config.storage().threads()).isEqualTo(3);
    assertThat(config.storage().queueSize()).isEqualTo(100);
    assertThat(config.storage().blockCacheBytes()).isEqualTo(64L << 20);
    assertThat(config.storage().maxDiskBytes()).isEqualTo(10L << 30);
    assertThat(config.storage().tombstoneGrace()).isEqualTo(Duration.ofDays(3));
    assertThat(config.storage().sweepInterval()).isEqualTo(Duration.ofSeconds(30));
    assertThat(config.storage().paxosPurgeGrace()).isEqualTo(Duration.ofMinutes(10));
    assertThat(config.shutdownGrace()).isEqualTo(Duration.ofSeconds(20));
    assertThat(config.maxClockOffset()).isEqualTo(Duration.ofMillis(250));
  }

  @Test
  void flagsAlsoTakeTheirValueAsTheNextArgument() {
    NodeConfig config =
        config("--node-id", "n1", "--http-port", "18080", "--request-timeout", "2s");

    assertThat(config.http().port()).isEqualTo(18080);
    assertThat(config.requestTimeout()).isEqualTo(Duration.ofSeconds(2));
  }

  @ParameterizedTest(name = "--sync-writes={0}")
  @CsvSource({
    "true, true",
    "false, false",
    "yes, true",
    "no, false",
    "1, true",
    "0, false",
    "100ms, 100ms",
    "2s, 2000ms",
    "1s, 1000ms"
  })
  void syncWritesTakesABooleanOrAnInterval(String value, String expected) {
    assertThat(config("--node-id=n1", "--sync-writes=" + value).storage().syncWrites())
        .hasToString(expected);
  }

  @Test
  void syncWritesWithoutAValueSyncsEveryWrite() {
    assertThat(config("--node-id=n1", "--sync-writes").storage().syncWrites())
        .isEqualTo(WalSync.EVERY_WRITE);
  }

  @Test
  void httpPortZeroMeansAnyFreePort() {
    assertThat(config("--node-id=n1", "--http-port=0").http().port()).isZero();
  }

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource({
    "--http-port, 70000",
    "--http-port, -1",
    "--http-port, http",
    "--http-port, 99999999999",
    "--grpc-port, 0",
    "--grpc-port, 65536",
    "--grpc-port, ''",
    "--node-id, 'bad id'",
    "--node-id, n1/2",
    "--request-timeout, 0",
    "--request-timeout, 1.5s",
    "--request-timeout, -1s",
    "--request-timeout, soon",
    "--request-timeout, 999999999999999999d",
    "--idle-timeout, 5x",
    "--shutdown-grace, 0s",
    "--tombstone-grace, forever",
    "--sweep-interval, 0ms",
    "--paxos-purge-grace, 0",
    "--paxos-purge-grace, 2s",
    "--max-clock-offset, 0",
    "--max-clock-offset, -500ms",
    "--max-clock-offset, half a second",
    "--max-value-size, big",
    "--max-value-size, 0",
    "--max-value-size, -1",
    "--max-value-size, 2GiB",
    "--max-value-size, 999999999999999GiB",
    "--max-key-size, 1.5KiB",
    "--max-key-size, 0",
    "--block-cache-size, 0",
    "--max-disk-usage, -1",
    "--max-disk-usage, lots",
    "--storage-threads, -1",
    "--storage-threads, many",
    "--storage-queue, 0",
    "--storage-queue, -5",
    "--io-threads, -2",
    "--http-host, ' '",
    "--sync-writes, maybe",
    "--sync-writes, 0ms",
    "--sync-writes, -5s"
  })
  void invalidValuesAreRefusedNamingTheFlagAndTheValue(String flag, String value) {
    String[] args =
        flag.equals("--node-id")
            ? new String[] {flag + "=" + value}
            : new String[] {"--node-id=n1", flag + "=" + value};

    assertThatThrownBy(() -> config(args))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(flag)
        .hasMessageContaining("'" + value + "'");
  }

  @Test
  void selfMissingFromPeersIsRefused() {
    String peers = "n1=h1:9090,n2=h2:9090";

    assertThatThrownBy(() -> config("--node-id=n3", "--peers=" + peers))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("--peers '" + peers + "'")
        .hasMessageContaining("n3")
        .hasMessageContaining("not among the peers");
  }

  @Test
  void duplicateIdsInPeersAreRefused() {
    String peers = "n1=h1:9090,n2=h2:9090,n1=h3:9090";

    assertThatThrownBy(() -> config("--node-id=n1", "--peers=" + peers))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("--peers '" + peers + "'")
        .hasMessageContaining("more than once");
  }

  @Test
  void aMalformedPeerEntryIsRefused() {
    assertThatThrownBy(() -> config("--node-id=n1", "--peers=n1=h1:9090,n2@h2:9090"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("--peers 'n2@h2:9090'");
  }

  @Test
  void valuesTooLargeSayWhy() {
    assertThatThrownBy(() -> config("--node-id=n1", "--max-disk-usage=999999999999999GiB"))
        .isInstanceOf(ConfigException.class)
        .hasMessage("--max-disk-usage '999999999999999GiB': too large");
    assertThatThrownBy(() -> config("--node-id=n1", "--max-value-size=2GiB"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("under 2GiB");
  }

  /** A floor that could overtake a round under way would refuse it for nothing, again and again. */
  @Test
  void thePaxosPurgeGraceOutlastsTheRequestTimeoutAndTheClockOffsets() {
    assertThatThrownBy(
            () ->
                config(
                    "--node-id=n1",
                    "--request-timeout=5s",
                    "--max-clock-offset=1s",
                    "--paxos-purge-grace=7s"))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "--paxos-purge-grace '7s': must be longer than the request timeout plus twice"
                + " --max-clock-offset (7000ms); make it much longer");
    assertThat(
            config("--node-id=n1", "--request-timeout=5s", "--paxos-purge-grace=8s")
                .storage()
                .paxosPurgeGrace())
        .isEqualTo(Duration.ofSeconds(8));
  }

  private static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (java.net.UnknownHostException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void tlsIsOffUnlessItsThreeFilesAreGiven() {
    assertThat(config("--node-id=n1").tls()).isEmpty();

    NodeConfig.Tls tls =
        config(
                "--node-id=n1",
                "--tls-cert=/etc/kvorum/tls.crt",
                "--tls-key=/etc/kvorum/tls.key",
                "--tls-ca=/etc/kvorum/ca.crt",
                "--http-tls",
                "--tls-reload-interval=30s")
            .tls()
            .orElseThrow();

    assertThat(tls.certificate()).isEqualTo(Path.of("/etc/kvorum/tls.crt"));
    assertThat(tls.privateKey()).isEqualTo(Path.of("/etc/kvorum/tls.key"));
    assertThat(tls.trustedCa()).isEqualTo(Path.of("/etc/kvorum/ca.crt"));
    assertThat(tls.http()).isTrue();
    assertThat(tls.reloadInterval()).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void someButNotAllTlsFilesAreRefusedNamingTheFileAndWhatIsMissing() {
    assertThatThrownBy(() -> config("--node-id=n1", "--tls-cert=/x/tls.crt", "--tls-ca=/x/ca.crt"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("--tls-cert '/x/tls.crt'")
        .hasMessageContaining("--tls-key is missing");
    assertThatThrownBy(() -> config("--node-id=n1", "--tls-key=/x/tls.key"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("--tls-key '/x/tls.key'")
        .hasMessageContaining("--tls-cert and --tls-ca are missing");
  }

  @Test
  void httpTlsWithoutTheFilesIsRefused() {
    assertThatThrownBy(() -> config("--node-id=n1", "--http-tls"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("--http-tls 'true'")
        .hasMessageContaining("--tls-cert");
  }
}
