package io.kvorum.node.changes;

import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.Version;

/**
 * The cursors of change feeds as clients see them: a stamp (see {@link
 * io.kvorum.node.storage.ChangeLog}) written in decimal digits, as etcd writes revisions. Clients
 * treat them as opaque; a node of any release parses them the same.
 */
public final class Cursors {
  private Cursors() {}

  public static String format(long stamp) {
    return Long.toString(stamp);
  }

  /**
   * The stamp of {@code cursor}.
   *
   * @throws InvalidRequestException naming {@code parameter} if it is not a cursor
   */
  public static long parse(String parameter, String cursor) {
    if (cursor.isEmpty() || cursor.length() > 19 || !cursor.chars().allMatch(Character::isDigit)) {
      throw new InvalidRequestException(
          parameter, "not a cursor this API gave (decimal digits): '" + cursor + "'");
    }
    try {
      return Long.parseLong(cursor);
    } catch (NumberFormatException e) {
      throw new InvalidRequestException(parameter, "not a cursor this API gave: '" + cursor + "'");
    }
  }

  /** The wall-clock time of {@code stamp}, Unix milliseconds. */
  static long millis(long stamp) {
    return new Version(stamp).physicalMillis();
  }
}
