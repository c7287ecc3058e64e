package io.kvorum.node.auth;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * Coverage-guided fuzzing (Jazzer) of the tokens file's parser ({@code --auth-tokens}), a target of
 * the HTTP edge beside {@code HttpEdgeFuzzTest}'s (docs/testing.md): its seed corpus is {@code
 * AccessTokensFuzzTestInputs/tokensFile}.
 */
class AccessTokensFuzzTest {
  private static final Pattern TOKENS_ERROR =
      Pattern.compile(
          "line \\d+: (expected TOKEN ROLE, found \\d+ fields"
              + "|a token is letters, digits and - \\. _ ~ \\+ / \\(then optional = padding\\)"
              + "|unknown role: use read, write or admin"
              + "|the same token as line \\d+)"
              + "|no tokens: expected lines of TOKEN ROLE");

  /**
   * Tokens files: parsed, or refused with a message that names a line and never repeats the file's
   * text; every token parsed has the role its line gives.
   */
  @FuzzTest(maxDuration = "10s")
  void tokensFile(byte[] input) {
    String text = new String(input, StandardCharsets.UTF_8);
    AccessTokens tokens;
    try {
      tokens = AccessTokens.parse(text);
    } catch (IllegalArgumentException e) {
      assertThat(e.getMessage()).matches(TOKENS_ERROR);
      return;
    }
    int lines = 0;
    for (String line : text.replace("\uFEFF", "").split("\n", -1)) {
      int hash = line.indexOf('#');
      String[] fields = (hash < 0 ? line : line.substring(0, hash)).strip().split("[ \t]+");
      if (fields.length == 2) {
        lines++;
        assertThat(tokens.roleOf(fields[0])).isEqualTo(Role.of(fields[1]));
      }
    }
    assertThat(tokens.size()).isEqualTo(lines);
  }
}
