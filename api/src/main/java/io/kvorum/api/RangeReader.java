package io.kvorum.api;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Locale;
import java.util.NoSuchElementException;

/**
 * Reads a range response entry by entry as it streams in. Each HTTP chunk is one entry ({@code key
 * '\n' value}), which is why this speaks HTTP/1.1 on a plain socket: general HTTP clients do not
 * expose chunk boundaries, and values may contain '\n'.
 *
 * <p>A response cut off before its final empty chunk (a node failed mid-stream) makes {@link
 * #hasNext()} throw {@link UncheckedIOException} wrapping an {@link EOFException}: the caller never
 * mistakes a partial range for a complete one.
 */
public final class RangeReader implements Iterator<RangeEntry>, Closeable {
  private final Socket socket;
  private final InputStream in;
  private RangeEntry next;
  private boolean finished;

  private RangeReader(Socket socket, InputStream in) {
    this.socket = socket;
    this.in = in;
  }

  static RangeReader open(
      InetSocketAddress server, byte[] start, byte[] end, Duration readTimeout) {
    return open(server, start, end, readTimeout, null);
  }

  /**
   * Starts the range request.
   *
   * @param authorization the value of the {@code Authorization} header, or null for none
   */
  static RangeReader open(
      InetSocketAddress server,
      byte[] start,
      byte[] end,
      Duration readTimeout,
      String authorization) {
    StringBuilder target =
        new StringBuilder(KvorumApi.PATH_ENTITIES)
            .append('?')
            .append(KvorumApi.PARAM_START)
            .append('=')
            .append(Urls.encode(start));
    if (end != null) {
      target.append('&').append(KvorumApi.PARAM_END).append('=').append(Urls.encode(end));
    }
    Socket socket = new Socket();
    try {
      socket.connect(server, (int) readTimeout.toMillis());
      socket.setSoTimeout((int) readTimeout.toMillis());
      OutputStream out = socket.getOutputStream();
      out.write(
          ("GET "
                  + target
                  + " HTTP/1.1\r\nHost: "
                  + server.getHostString()
                  + ":"
                  + server.getPort()
                  + (authorization == null
                      ? ""
                      : "\r\n" + KvorumApi.AUTHORIZATION + ": " + authorization)
                  + "\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      RangeReader reader =
          new RangeReader(socket, new BufferedInputStream(socket.getInputStream()));
      reader.readHead();
      return reader;
    } catch (IOException e) {
      closeQuietly(socket);
      throw new UncheckedIOException("range request to " + server + " failed", e);
    } catch (RuntimeException e) {
      closeQuietly(socket);
      throw e;
    }
  }

  private void readHead() throws IOException {
    String statusLine = readLine();
    String[] parts = statusLine.split(" ", 3);
    if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
      throw new IOException("not an HTTP response: " + statusLine);
    }
    int status = Integer.parseInt(parts[1]);
    boolean chunked = false;
    int contentLength = -1;
    for (String line = readLine(); !line.isEmpty(); line = readLine()) {
      int colon = line.indexOf(':');
      String name = line.substring(0, Math.max(colon, 0)).trim().toLowerCase(Locale.ROOT);
      String value = line.substring(colon + 1).trim();
      if (name.equals("transfer-encoding")) {
        chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
      } else if (name.equals("content-length")) {
        contentLength = Integer.parseInt(value);
      }
    }
    if (status != 200) {
      byte[] body = contentLength >= 0 ? in.readNBytes(contentLength) : in.readAllBytes();
      throw new KvorumClientException(status, new String(body, StandardCharsets.UTF_8));
    }
    if (!chunked) {
      throw new IOException("a range response must be chunked");
    }
  }

  @Override
  public boolean hasNext() {
    if (next == null && !finished) {
      try {
        next = readEntry();
      } catch (IOException e) {
        close();
        throw new UncheckedIOException("range response incomplete", e);
      }
    }
    return next != null;
  }

  @Override
  public RangeEntry next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    RangeEntry entry = next;
    next = null;
    return entry;
  }

  /** Whether the final chunk arrived: the range is complete. */
  public boolean complete() {
    return finished;
  }

  private RangeEntry readEntry() throws IOException {
    String sizeLine = readLine();
    int semicolon = sizeLine.indexOf(';');
    int size =
        Integer.parseInt((semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).trim(), 16);
    if (size == 0) {
      while (!readLine().isEmpty()) {
        // trailers: none expected, skipped
      }
      finished = true;
      close();
      return null;
    }
    byte[] chunk = in.readNBytes(size);
    if (chunk.length < size) {
      throw new EOFException("connection closed inside a chunk");
    }
    if (!readLine().isEmpty()) {
      throw new IOException("malformed chunk");
    }
    int separator = indexOf(chunk, (byte) '\n');
    if (separator < 0) {
      throw new IOException("a range chunk without the key/value separator");
    }
    return new RangeEntry(
        Arrays.copyOfRange(chunk, 0, separator),
        Arrays.copyOfRange(chunk, separator + 1, chunk.length));
  }

  private String readLine() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream(64);
    while (true) {
      int b = in.read();
      if (b < 0) {
        throw new EOFException("connection closed before the end of the range");
      }
      if (b == '\n') {
        byte[] bytes = line.toByteArray();
        int length =
            bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
        return new String(bytes, 0, length, StandardCharsets.ISO_8859_1);
      }
      line.write(b);
    }
  }

  private static int indexOf(byte[] bytes, byte b) {
    for (int i = 0; i < bytes.length; i++) {
      if (bytes[i] == b) {
        return i;
      }
    }
    return -1;
  }

  @Override
  public void close() {
    closeQuietly(socket);
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // nothing left to do
    }
  }
}
