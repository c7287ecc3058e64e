package io.kvorum.node.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class KeyRangeTest {
  private static final Key B = Key.utf8("b");
  private static final Key D = Key.utf8("d");

  @Test
  void startIsInclusiveAndEndExclusive() {
    KeyRange range = KeyRange.between(B, D);

    assertThat(range.contains(Key.utf8("a"))).isFalse();
    assertThat(range.contains(B)).isTrue();
    assertThat(range.contains(Key.utf8("c"))).isTrue();
    assertThat(range.contains(Key.utf8("czzz"))).isTrue();
    assertThat(range.contains(D)).isFalse();
    assertThat(range.contains(Key.utf8("e"))).isFalse();
    assertThat(range.isEmpty()).isFalse();
  }

  @Test
  void anAbsentEndRunsToTheLastKey() {
    KeyRange range = KeyRange.from(B);

    assertThat(range.end()).isEmpty();
    assertThat(range.contains(B)).isTrue();
    assertThat(range.contains(Key.of(new byte[] {(byte) 0xFF, (byte) 0xFF}))).isTrue();
    assertThat(range.contains(Key.utf8("a"))).isFalse();
    assertThat(range.isEmpty()).isFalse();
  }

  @Test
  void boundsCompareUnsigned() {
    KeyRange range = KeyRange.between(Key.of(new byte[] {0x7F}), Key.of(new byte[] {(byte) 0xFF}));

    assertThat(range.contains(Key.of(new byte[] {(byte) 0x80}))).isTrue();
    assertThat(range.contains(Key.of(new byte[] {0x00}))).isFalse();
  }

  @Test
  void aRangeWhoseEndIsNotAfterItsStartIsEmpty() {
    assertThat(KeyRange.between(B, B).isEmpty()).isTrue();
    assertThat(KeyRange.between(D, B).isEmpty()).isTrue();
    assertThat(KeyRange.between(D, B).contains(Key.utf8("c"))).isFalse();
    assertThat(KeyRange.between(B, B).contains(B)).isFalse();
  }

  @Test
  void nullsAreRefused() {
    assertThatThrownBy(() -> new KeyRange(null, Optional.empty()))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> new KeyRange(B, null)).isInstanceOf(NullPointerException.class);
  }
}
