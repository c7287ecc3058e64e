package io.kvorum.node.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvorum.node.config.ConfigException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ThreadingTest {
  private static Threading from(Map<String, String> properties) {
    return Threading.from(properties::get);
  }

  @Test
  void everySwitchIsOnUnlessSaidOtherwise() {
    assertThat(from(Map.of())).isEqualTo(Threading.AFTER);
    assertThat(from(Map.of("kvorum.threads", "after"))).isEqualTo(Threading.AFTER);
  }

  @Test
  void beforeTurnsThemAllOffAndOneCanBeTurnedBackOn() {
    assertThat(from(Map.of("kvorum.threads", "before"))).isEqualTo(Threading.BEFORE);
    assertThat(from(Map.of("kvorum.threads", "before", "kvorum.threads.memoryFirstReads", "true")))
        .isEqualTo(new Threading(false, false, false, false, true, false, false));
    assertThat(from(Map.of("kvorum.threads.writesAtOnce", "false")).writesAtOnce()).isFalse();
    assertThat(from(Map.of()).quietBackground()).as("off unless asked for").isFalse();
    assertThat(from(Map.of("kvorum.threads.quietBackground", "true")).quietBackground()).isTrue();
    assertThat(from(Map.of("kvorum.threads.sharedLoops", "FALSE")).sharedLoops()).isFalse();
  }

  @Test
  void anyOtherValueIsRefusedNamingTheProperty() {
    assertThatThrownBy(() -> from(Map.of("kvorum.threads", "fast")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("-Dkvorum.threads 'fast'");
    assertThatThrownBy(() -> from(Map.of("kvorum.threads.inlineReplies", "yes")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("-Dkvorum.threads.inlineReplies 'yes'");
  }
}
