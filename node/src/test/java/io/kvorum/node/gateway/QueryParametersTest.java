package io.kvorum.node.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvorum.node.core.InvalidRequestException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class QueryParametersTest {
  @Test
  void percentEncodedBytesDecodeToRawBytes() {
    QueryParameters query = QueryParameters.parse("id=%00%ff%7F%80");

    assertThat(query.bytes("id"))
        .hasValueSatisfying(b -> assertThat(b).containsExactly(0x00, 0xFF, 0x7F, 0x80));
  }

  @Test
  void percentEncodedUtf8DecodesToText() {
    QueryParameters query = QueryParameters.parse("id=%D0%BA%D0%BB%D1%8E%D1%87&x=caf%C3%A9");

    assertThat(query.text("id")).contains("ключ");
    assertThat(query.text("x")).contains("café");
    assertThat(query.bytes("x"))
        .hasValueSatisfying(b -> assertThat(b).isEqualTo("café".getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void plusIsASpaceAndAnEncodedPlusIsAPlus() {
    QueryParameters query = QueryParameters.parse("id=a+b%2Bc%20d");

    assertThat(query.text("id")).contains("a b+c d");
  }

  @Test
  void rawNonAsciiCharactersAreTheBytesTheyStandFor() {
    // Netty hands over each byte of the request line as one ISO-8859-1 char.
    String rawUtf8 = new String("é€".getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
    QueryParameters query = QueryParameters.parse("id=" + rawUtf8 + "&b=\u0080\u00ff");

    assertThat(query.text("id")).contains("é€");
    assertThat(query.bytes("b")).hasValueSatisfying(b -> assertThat(b).containsExactly(0x80, 0xFF));
  }

  @Test
  void theFirstValueOfARepeatedNameWins() {
    QueryParameters query = QueryParameters.parse("id=first&ack=1&id=second&id=third");

    assertThat(query.text("id")).contains("first");
    assertThat(query.text("ack")).contains("1");
  }

  @Test
  void namesArePercentDecodedToo() {
    QueryParameters query = QueryParameters.parse("i%64=x");

    assertThat(query.text("id")).contains("x");
  }

  @Test
  void aNameWithoutValueIsPresentAndEmpty() {
    QueryParameters query = QueryParameters.parse("id&start=&end=z");

    assertThat(query.has("id")).isTrue();
    assertThat(query.bytes("id")).hasValueSatisfying(b -> assertThat(b).isEmpty());
    assertThat(query.bytes("start")).hasValueSatisfying(b -> assertThat(b).isEmpty());
    assertThat(query.text("end")).contains("z");
  }

  @Test
  void valuesMayContainEqualsSigns() {
    assertThat(QueryParameters.parse("id=a=b&x=1").text("id")).contains("a=b");
  }

  @Test
  void emptyPartsAreSkipped() {
    QueryParameters query = QueryParameters.parse("&&id=1&&ack=2&");

    assertThat(query.text("id")).contains("1");
    assertThat(query.text("ack")).contains("2");
    assertThat(query.has("")).isFalse();
  }

  @Test
  void anAbsentParameterIsEmpty() {
    QueryParameters query = QueryParameters.parse("");

    assertThat(query.has("id")).isFalse();
    assertThat(query.bytes("id")).isEmpty();
    assertThat(query.text("id")).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"%", "%4", "%G1", "%4G", "abc%", "a%-1", "%%41", "%+1"})
  void malformedPercentEncodingIsRefusedNamingTheParameter(String value) {
    assertThatThrownBy(() -> QueryParameters.parse("ack=1&id=" + value))
        .isInstanceOfSatisfying(
            InvalidRequestException.class, e -> assertThat(e.parameter()).contains("id"))
        .hasMessageContaining("'id'")
        .hasMessageContaining("percent-encoding");
  }

  @Test
  void malformedPercentEncodingInANameIsRefused() {
    assertThatThrownBy(() -> QueryParameters.parse("i%6=x"))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("percent-encoding");
  }
}
