package io.kvorum.node.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AccessTokensTest {
  private static final String FILE =
      """
      # kvorum client tokens
      reader-0123456789abcdef   read
      writer-0123456789abcdef\twrite   # the loader's
         admin-0123456789abcdef ADMIN

      b64+token/with~all.chars_==  read
      """;

  @Test
  void eachTokenHasItsRole() {
    AccessTokens tokens = AccessTokens.parse(FILE);

    assertThat(tokens.roleOf("reader-0123456789abcdef")).isEqualTo(Role.READ);
    assertThat(tokens.roleOf("writer-0123456789abcdef")).isEqualTo(Role.WRITE);
    assertThat(tokens.roleOf("admin-0123456789abcdef")).isEqualTo(Role.ADMIN);
    assertThat(tokens.roleOf("b64+token/with~all.chars_==")).isEqualTo(Role.READ);
    assertThat(tokens.size()).isEqualTo(4);
    assertThat(tokens).hasToString("4 tokens (2 read, 1 write, 1 admin)");
  }

  @Test
  void anUnknownTokenHasNoRole() {
    AccessTokens tokens = AccessTokens.parse(FILE);

    assertThat(tokens.roleOf("reader-0123456789abcde")).isNull();
    assertThat(tokens.roleOf("reader-0123456789abcdef0")).isNull();
    assertThat(tokens.roleOf("")).isNull();
    assertThat(tokens.roleOf("read")).isNull();
    assertThat(tokens.roleOf("reader-0123456789abcdéf")).isNull();
  }

  @Test
  void aTokenIsFoundInsideAHeader() {
    AccessTokens tokens = AccessTokens.parse(FILE);
    String header = "Bearer writer-0123456789abcdef ";

    assertThat(tokens.roleOf(header, 7, header.length() - 1)).isEqualTo(Role.WRITE);
    assertThat(tokens.roleOf(header, 7, header.length())).isNull();
  }

  @Test
  void windowsLineEndingsAndAByteOrderMarkAreRead() {
    AccessTokens tokens = AccessTokens.parse("\uFEFFone-token read\r\ntwo-token write\r\n");

    assertThat(tokens.roleOf("one-token")).isEqualTo(Role.READ);
    assertThat(tokens.roleOf("two-token")).isEqualTo(Role.WRITE);
    assertThat(tokens.shortTokens()).isEqualTo(2);
  }

  @Test
  void rolesIncludeTheLesserOnes() {
    assertThat(Role.ADMIN.includes(Role.WRITE)).isTrue();
    assertThat(Role.ADMIN.includes(Role.READ)).isTrue();
    assertThat(Role.WRITE.includes(Role.READ)).isTrue();
    assertThat(Role.WRITE.includes(Role.ADMIN)).isFalse();
    assertThat(Role.READ.includes(Role.WRITE)).isFalse();
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "'secret-token'|line 1: expected TOKEN ROLE, found 1 fields",
        "'secret-token read write'|line 1: expected TOKEN ROLE, found 3 fields",
        "'# header\\nsecret-token reader'|line 2: unknown role: use read, write or admin",
        "'read secret-token'|line 1: unknown role: use read, write or admin",
        "'secret,token read'|line 1: a token is letters, digits and - . _ ~ + / (then optional"
            + " = padding)",
        "'==== read'|line 1: a token is letters, digits and - . _ ~ + / (then optional"
            + " = padding)",
        "'secret=token read'|line 1: a token is letters, digits and - . _ ~ + / (then optional"
            + " = padding)",
        "'secret-token read\\n\\nsecret-token admin'|line 3: the same token as line 1",
        "''|no tokens: expected lines of TOKEN ROLE",
        "'# only a comment\\n\\n'|no tokens: expected lines of TOKEN ROLE",
      })
  void aMalformedFileIsRefusedNamingTheLineButNeverTheToken(String text, String message) {
    String file = text.replace("\\n", "\n");
    assertThatThrownBy(() -> AccessTokens.parse(file))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message)
        .message()
        .doesNotContain("secret");
  }
}
