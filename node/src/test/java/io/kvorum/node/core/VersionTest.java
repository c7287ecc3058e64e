package io.kvorum.node.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class VersionTest {
  @Test
  void packsPhysicalAndLogicalParts() {
    Version v = Version.of(1_700_000_000_123L, 42);

    assertThat(v.physicalMillis()).isEqualTo(1_700_000_000_123L);
    assertThat(v.logical()).isEqualTo(42);
    assertThat(v.value()).isEqualTo(1_700_000_000_123L << 16 | 42);
    assertThat(new Version(v.value())).isEqualTo(v);
    assertThat(v).hasToString("1700000000123.42");
  }

  @Test
  void extremesRoundTrip() {
    Version max = Version.of(Version.MAX_PHYSICAL, Version.MAX_LOGICAL);

    assertThat(max.physicalMillis()).isEqualTo(Version.MAX_PHYSICAL);
    assertThat(max.logical()).isEqualTo(Version.MAX_LOGICAL);
    assertThat(max).isGreaterThan(Version.of(Version.MAX_PHYSICAL, 0));
    assertThat(Version.of(0, 0)).isEqualTo(Version.ZERO);
  }

  @Test
  void ordersByPhysicalTimeThenLogicalCounter() {
    Version early = Version.of(1000, Version.MAX_LOGICAL);
    Version later = Version.of(1001, 0);
    Version laterStill = Version.of(1001, 1);

    assertThat(early).isLessThan(later);
    assertThat(later).isLessThan(laterStill);
    assertThat(laterStill).isGreaterThan(later);
    assertThat(later).isLessThanOrEqualTo(later);
    assertThat(early).isLessThanOrEqualTo(later);
    assertThat(Version.ZERO).isLessThan(Version.of(0, 1));
  }

  @Test
  void rangesAreChecked() {
    assertThatThrownBy(() -> Version.of(-1, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Version.of(Version.MAX_PHYSICAL + 1, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("physical");
    assertThatThrownBy(() -> Version.of(0, -1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Version.of(0, Version.MAX_LOGICAL + 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("logical");
    assertThatThrownBy(() -> new Version(-1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void currentDatesAreFarFromTheLimit() {
    assertThat(Version.MAX_PHYSICAL).isGreaterThan(System.currentTimeMillis() * 50);
  }
}
