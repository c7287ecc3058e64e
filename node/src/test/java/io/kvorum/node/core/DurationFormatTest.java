package io.kvorum.node.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class DurationFormatTest {
  @Test
  void parsesEveryUnit() {
    assertThat(DurationFormat.parse("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(DurationFormat.parse("30s")).isEqualTo(Duration.ofSeconds(30));
    assertThat(DurationFormat.parse("5m")).isEqualTo(Duration.ofMinutes(5));
    assertThat(DurationFormat.parse("2h")).isEqualTo(Duration.ofHours(2));
    assertThat(DurationFormat.parse("7d")).isEqualTo(Duration.ofDays(7));
  }

  @Test
  void aBareNumberIsSeconds() {
    assertThat(DurationFormat.parse("45")).isEqualTo(Duration.ofSeconds(45));
    assertThat(DurationFormat.parse("0")).isEqualTo(Duration.ZERO);
  }

  @Test
  void surroundingSpaceIsIgnored() {
    assertThat(DurationFormat.parse(" 10s ")).isEqualTo(Duration.ofSeconds(10));
  }

  @ParameterizedTest
  @NullAndEmptySource
  @ValueSource(
      strings = {
        "abc",
        "s",
        "10 s",
        "10S",
        "1w",
        "1y",
        "10sec",
        "-5s",
        "-1",
        "+5s",
        "1.5s",
        "0.5",
        "1e3",
        "1s2",
        "5m30s",
        "9999999999999999999",
        "99999999999999999999s"
      })
  void refusesAnythingElse(String text) {
    assertThatThrownBy(() -> DurationFormat.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("500ms");
  }

  @Test
  void refusesDurationsTooLongToRepresent() {
    assertThatThrownBy(() -> DurationFormat.parse("999999999999999999d"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("too long");
  }

  @Test
  @SuppressWarnings("CanonicalDuration") // the point: format finds the larger unit itself
  void formatsInTheLargestExactUnit() {
    assertThat(DurationFormat.format(Duration.ofMillis(500))).isEqualTo("500ms");
    assertThat(DurationFormat.format(Duration.ofMillis(1500))).isEqualTo("1500ms");
    assertThat(DurationFormat.format(Duration.ofSeconds(30))).isEqualTo("30s");
    assertThat(DurationFormat.format(Duration.ofSeconds(90))).isEqualTo("90s");
    assertThat(DurationFormat.format(Duration.ofSeconds(300))).isEqualTo("5m");
    assertThat(DurationFormat.format(Duration.ofMinutes(120))).isEqualTo("2h");
    assertThat(DurationFormat.format(Duration.ofHours(168))).isEqualTo("7d");
    assertThat(DurationFormat.format(Duration.ZERO)).isEqualTo("0s");
  }

  @ParameterizedTest
  @ValueSource(strings = {"500ms", "1500ms", "30s", "5m", "2h", "7d", "7300d", "0s", "61m"})
  void formatRoundTrips(String text) {
    assertThat(DurationFormat.format(DurationFormat.parse(text))).isEqualTo(text);
  }

  @ParameterizedTest
  @ValueSource(longs = {1, 999, 1000, 59_999, 60_000, 3_600_001, 86_400_000, 123_456_789})
  void parseOfFormatIsIdentity(long millis) {
    Duration d = Duration.ofMillis(millis);

    assertThat(DurationFormat.parse(DurationFormat.format(d))).isEqualTo(d);
  }
}
