package io.kvorum.node.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvorum.node.core.NodeId;
import io.kvorum.node.topology.Member;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PeersFormatTest {
  @Test
  void parsesAListInOrder() {
    assertThat(PeersFormat.parse("n1=10.0.0.1:9090,n2=node-2.kvorum.svc:9091,n3=localhost:19090"))
        .containsExactly(
            new Member(NodeId.of("n1"), "10.0.0.1", 9090),
            new Member(NodeId.of("n2"), "node-2.kvorum.svc", 9091),
            new Member(NodeId.of("n3"), "localhost", 19090));
  }

  @Test
  void parsesASingleEntry() {
    assertThat(PeersFormat.parse("solo=127.0.0.1:9090"))
        .containsExactly(new Member(NodeId.of("solo"), "127.0.0.1", 9090));
  }

  @Test
  void toleratesSpacesAroundEntriesAndParts() {
    assertThat(PeersFormat.parse(" n1 = h1:1 , n2=h2:2 "))
        .containsExactly(
            new Member(NodeId.of("n1"), "h1", 1), new Member(NodeId.of("n2"), "h2", 2));
  }

  @Test
  void ipv6HostsGoInBrackets() {
    assertThat(PeersFormat.parse("n1=[::1]:9090,n2=[fd00::2]:65535"))
        .containsExactly(
            new Member(NodeId.of("n1"), "::1", 9090),
            new Member(NodeId.of("n2"), "fd00::2", 65535));
  }

  @Test
  void ipv6HostsWithoutBracketsAreRefused() {
    assertThatThrownBy(() -> PeersFormat.parse("n1=::1:9090"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("--peers 'n1=::1:9090'")
        .hasMessageContaining("brackets");
  }

  @ParameterizedTest
  @ValueSource(strings = {"n1", "h:9090", "=h:9090", "n1=h:1,h2:2", "n1=h:1,", ",n1=h:1", ""})
  void entriesWithoutAnIdAreRefused(String peers) {
    assertThatThrownBy(() -> PeersFormat.parse(peers))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("--peers '")
        .hasMessageContaining("id=host:port");
  }

  @ParameterizedTest
  @ValueSource(strings = {"n1=h", "n1=h:", "n1=:9090", "n1="})
  void entriesWithoutHostAndPortAreRefused(String peers) {
    assertThatThrownBy(() -> PeersFormat.parse(peers))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("--peers '" + peers + "'");
  }

  @ParameterizedTest
  @ValueSource(strings = {"n1=h:abc", "n1=h:9090x", "n1=h:-1", "n1=h:99999999999"})
  void portsThatAreNotNumbersAreRefused(String peers) {
    assertThatThrownBy(() -> PeersFormat.parse(peers))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("--peers '" + peers + "'")
        .hasMessageContaining("port");
  }

  @ParameterizedTest
  @ValueSource(strings = {"n1=h:0", "n1=h:65536", "n1=[]:9090"})
  void portsOutOfRangeAndEmptyHostsAreRefused(String peers) {
    assertThatThrownBy(() -> PeersFormat.parse(peers))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("--peers '" + peers + "'")
        .hasMessageContaining("out of range");
  }

  @ParameterizedTest
  @ValueSource(strings = {"bad id=h:1", "n/1=h:1", "é=h:1"})
  void invalidNodeIdsAreRefused(String peers) {
    assertThatThrownBy(() -> PeersFormat.parse(peers))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("--peers '" + peers + "'")
        .hasMessageContaining("node id");
  }

  @Test
  void theErrorNamesTheOffendingEntry() {
    assertThatThrownBy(() -> PeersFormat.parse("n1=h1:1,n2=h2:x,n3=h3:3"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("--peers 'n2=h2:x'");
  }
}
