package io.kvorum.node.cli.backup;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.Locale;

/**
 * A bandwidth limit ({@code --max-rate}) over every stream it wraps: reading pauses whenever the
 * bytes read so far are ahead of the rate since the first byte. Thread-safe; 0 is no limit.
 */
final class Throttle {
  private final long bytesPerSecond;
  private long startNanos = -1;
  private long bytes;

  Throttle(long bytesPerSecond) {
    this.bytesPerSecond = bytesPerSecond;
  }

  /**
   * {@code text} as bytes a second: a number with an optional {@code k}, {@code M} or {@code G}
   * (powers of 1000) and an optional {@code B/s}; {@code 0} for no limit.
   *
   * @throws IllegalArgumentException if it is no such rate
   */
  static long parse(String text) {
    String t = text.strip().replaceFirst("(?i)b/s$", "").replaceFirst("(?i)b$", "");
    long unit = 1;
    if (!t.isEmpty()) {
      switch (Character.toLowerCase(t.charAt(t.length() - 1))) {
        case 'k' -> unit = 1_000;
        case 'm' -> unit = 1_000_000;
        case 'g' -> unit = 1_000_000_000;
        default -> unit = 1;
      }
    }
    String number = unit == 1 ? t : t.substring(0, t.length() - 1);
    double value = Double.parseDouble(number.toLowerCase(Locale.ROOT));
    if (value < 0 || Double.isNaN(value)) {
      throw new IllegalArgumentException("a rate is 0 or more");
    }
    return (long) (value * unit);
  }

  InputStream wrap(InputStream in) {
    if (bytesPerSecond <= 0) {
      return in;
    }
    return new FilterInputStream(in) {
      @Override
      public int read() throws IOException {
        int b = super.read();
        if (b >= 0) {
          pace(1);
        }
        return b;
      }

      @Override
      public int read(byte[] buffer, int offset, int length) throws IOException {
        int n = super.read(buffer, offset, Math.min(length, 64 << 10));
        if (n > 0) {
          pace(n);
        }
        return n;
      }
    };
  }

  private void pace(int read) throws InterruptedIOException {
    long waitNanos;
    synchronized (this) {
      long now = System.nanoTime();
      if (startNanos < 0) {
        startNanos = now;
      }
      bytes += read;
      waitNanos = bytes * 1_000_000_000L / bytesPerSecond - (now - startNanos);
    }
    if (waitNanos > 0) {
      try {
        Thread.sleep(waitNanos / 1_000_000, (int) (waitNanos % 1_000_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted");
      }
    }
  }
}
