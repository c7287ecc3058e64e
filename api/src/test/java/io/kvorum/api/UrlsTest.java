package io.kvorum.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class UrlsTest {
  @Test
  void unreservedCharactersStayAsTheyAre() {
    assertThat(Urls.encode("Az09-._~".getBytes(StandardCharsets.US_ASCII))).isEqualTo("Az09-._~");
  }

  @Test
  void everyOtherByteIsPercentEncoded() {
    assertThat(Urls.encode(new byte[] {0, (byte) 0xFF, ' ', '+', '&', '='}))
        .isEqualTo("%00%FF%20%2B%26%3D");
    assertThat(Urls.encode("ключ".getBytes(StandardCharsets.UTF_8)))
        .isEqualTo("%D0%BA%D0%BB%D1%8E%D1%87");
  }
}
