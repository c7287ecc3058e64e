package io.kvorum.node.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class KeyTest {
  @Test
  void ordersByUnsignedBytes() {
    Key zero = Key.of(new byte[] {0x00});
    Key x7f = Key.of(new byte[] {0x7F});
    Key x80 = Key.of(new byte[] {(byte) 0x80});
    Key xff = Key.of(new byte[] {(byte) 0xFF});
    Key xffZero = Key.of(new byte[] {(byte) 0xFF, 0x00});
    List<Key> keys = new ArrayList<>(List.of(xffZero, x80, zero, xff, x7f));

    Collections.sort(keys);

    assertThat(keys).containsExactly(zero, x7f, x80, xff, xffZero);
  }

  @Test
  void textKeysOrderByTheirUtf8Bytes() {
    assertThat(Key.utf8("a")).isLessThan(Key.utf8("b"));
    assertThat(Key.utf8("a")).isLessThan(Key.utf8("aa"));
    assertThat(Key.utf8("Z")).isLessThan(Key.utf8("a"));
    assertThat(Key.utf8("z")).as("ASCII before multi-byte").isLessThan(Key.utf8("é"));
  }

  @Test
  void equalityAndHashCodeFollowTheBytes() {
    Key a = Key.of(new byte[] {1, 2, 3});
    Key b = Key.of(new byte[] {1, 2, 3});

    assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
    assertThat(a.compareTo(b)).isZero();
    assertThat(a).isNotEqualTo(Key.of(new byte[] {1, 2}));
    assertThat(Key.utf8("key")).isEqualTo(Key.of("key".getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void anEmptyKeyIsRefused() {
    assertThatThrownBy(() -> Key.of(new byte[0])).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Key.utf8("")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void sizeIsTheByteLength() {
    assertThat(Key.utf8("é").size()).isEqualTo(2);
  }

  @Test
  void textKeysPrintAsText() {
    assertThat(Key.utf8("user:42")).hasToString("user:42");
    assertThat(Key.utf8("ключ")).hasToString("ключ");
  }

  @Test
  void binaryKeysPrintAsHex() {
    assertThat(Key.of(new byte[] {0x00, (byte) 0xFF, 0x10})).hasToString("0x00ff10");
    assertThat(Key.of(new byte[] {(byte) 0xC3})).as("truncated UTF-8").hasToString("0xc3");
    assertThat(Key.of(new byte[] {'a', '\n'})).as("control characters").hasToString("0x610a");
  }

  @Test
  void longKeysPrintShortened() {
    byte[] binary = new byte[1000];
    binary[0] = (byte) 0xFF;

    assertThat(Key.of(binary).toString()).startsWith("0xff00").endsWith("…").hasSizeLessThan(70);
    assertThat(Key.utf8("k".repeat(1000)).toString()).endsWith("…").hasSizeLessThan(70);
  }
}
