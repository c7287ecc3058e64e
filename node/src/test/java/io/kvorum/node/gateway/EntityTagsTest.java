package io.kvorum.node.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.Version;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class EntityTagsTest {
  @Test
  void aTagNamesTheVersionItWasMadeOf() {
    Version version = Version.of(1_764_207_353_123L, 7);
    String tag = EntityTags.format(version);
    assertThat(tag).isEqualTo("\"1764207353123.7\"");
    assertThat(EntityTags.parse(tag)).isEqualTo(version);
    assertThat(EntityTags.parse(" " + tag + " ")).isEqualTo(version);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "\"\"",
        "1.2",
        "W/\"1.2\"",
        "\"1\"",
        "\"1.\"",
        "\".2\"",
        "\"-1.2\"",
        "\"1.70000\"",
        "\"a.b\""
      })
  void anythingElseIsRefused(String tag) {
    assertThatThrownBy(() -> EntityTags.parse(tag)).isInstanceOf(InvalidRequestException.class);
  }
}
