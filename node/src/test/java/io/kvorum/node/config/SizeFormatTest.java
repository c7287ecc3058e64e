package io.kvorum.node.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class SizeFormatTest {
  @ParameterizedTest(name = "{0} = {1} bytes")
  @CsvSource({
    "0, 0",
    "512, 512",
    "512B, 512",
    "1KiB, 1024",
    "1K, 1024",
    "1KB, 1000",
    "16MiB, 16777216",
    "16M, 16777216",
    "16MB, 16000000",
    "1GiB, 1073741824",
    "1G, 1073741824",
    "2GB, 2000000000",
    "16mib, 16777216",
    "'16 MiB', 16777216",
    "' 1KiB ', 1024"
  })
  void parsesNumbersWithBinaryOrDecimalUnits(String text, long bytes) {
    assertThat(SizeFormat.parse(text)).isEqualTo(bytes);
  }

  @ParameterizedTest
  @NullAndEmptySource
  @ValueSource(
      strings = {"abc", "MiB", "-1", "-1KiB", "1.5MiB", "1TiB", "1 M i B", "1KiBs", "0x10", "1e6"})
  void refusesAnythingElse(String text) {
    assertThatThrownBy(() -> SizeFormat.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("16MiB");
  }

  @Test
  void refusesSizesTooLargeToRepresent() {
    assertThatThrownBy(() -> SizeFormat.parse("999999999999999GiB"))
        .isInstanceOf(ArithmeticException.class);
    assertThatThrownBy(() -> SizeFormat.parse("9999999999999999"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
