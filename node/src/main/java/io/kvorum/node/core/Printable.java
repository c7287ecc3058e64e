package io.kvorum.node.core;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** Renders raw bytes for humans (logs, error messages) without ever failing. */
public final class Printable {
  private Printable() {}

  /**
   * Shows {@code bytes} as text when they are valid UTF-8 without control characters, else as
   * {@code 0x…} hex; both cut to {@code limit} characters.
   */
  public static String bytes(byte[] bytes, int limit) {
    try {
      String text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(bytes))
              .toString();
      if (text.chars().noneMatch(Character::isISOControl)) {
        return text.length() <= limit ? text : text.substring(0, limit) + "…";
      }
    } catch (CharacterCodingException e) {
      // not text: fall through to hex
    }
    StringBuilder hex = new StringBuilder("0x");
    for (int i = 0; i < bytes.length && hex.length() < limit; i++) {
      hex.append(Character.forDigit((bytes[i] >> 4) & 0xF, 16))
          .append(Character.forDigit(bytes[i] & 0xF, 16));
    }
    return hex.length() >= limit && bytes.length * 2 + 2 > limit ? hex + "…" : hex.toString();
  }
}
