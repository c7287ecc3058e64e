package io.kvorum.node.testing;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 spoken by hand over one socket, for what ordinary clients hide: pipelining, exact
 * chunks, garbage bytes, connections the server closes.
 */
public final class RawHttpConnection implements AutoCloseable {
  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  /** A parsed response; {@code chunks} holds each chunk of a chunked body separately. */
  public record Response(
      int status,
      String reason,
      Map<String, String> headers,
      byte[] body,
      List<byte[]> chunks,
      boolean complete) {
    public String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }

    public String bodyText() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  public RawHttpConnection(InetSocketAddress server) throws IOException {
    socket = new Socket();
    socket.connect(server, 5000);
    socket.setSoTimeout(10_000);
    in = new BufferedInputStream(socket.getInputStream());
    out = socket.getOutputStream();
  }

  public RawHttpConnection write(String text) throws IOException {
    return write(text.getBytes(StandardCharsets.ISO_8859_1));
  }

  public RawHttpConnection write(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
    return this;
  }

  public OutputStream output() {
    return out;
  }

  /** A request with the given request target (raw: not encoded here) and no body. */
  public Response request(String method, String target) throws IOException {
    write(method + " " + target + " HTTP/1.1\r\nHost: test\r\n\r\n");
    return readResponse();
  }

  /**
   * Reads one response. A chunked body cut off before its last chunk gives {@code complete = false}
   * instead of an exception.
   */
  public Response readResponse() throws IOException {
    String statusLine = readLine();
    String[] parts = statusLine.split(" ", 3);
    Map<String, String> headers = new LinkedHashMap<>();
    for (String line = readLine(); !line.isEmpty(); line = readLine()) {
      int colon = line.indexOf(':');
      headers.put(
          line.substring(0, colon).trim().toLowerCase(Locale.ROOT),
          line.substring(colon + 1).trim());
    }
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    List<byte[]> chunks = new ArrayList<>();
    boolean complete = true;
    if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
      try {
        while (true) {
          int size = Integer.parseInt(readLine().trim(), 16);
          if (size == 0) {
            readLine();
            break;
          }
          byte[] chunk = readExactly(size);
          readLine();
          chunks.add(chunk);
          body.write(chunk);
        }
      } catch (EOFException e) {
        complete = false;
      }
    } else if (headers.containsKey("content-length")) {
      body.write(readExactly(Integer.parseInt(headers.get("content-length"))));
    }
    return new Response(
        Integer.parseInt(parts[1]),
        parts.length > 2 ? parts[2] : "",
        headers,
        body.toByteArray(),
        chunks,
        complete);
  }

  /** Whether the server has closed the connection (reads end of stream within the timeout). */
  public boolean closedByPeer() throws IOException {
    try {
      return in.read() < 0;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true; // reset
    }
  }

  private byte[] readExactly(int n) throws IOException {
    byte[] bytes = in.readNBytes(n);
    if (bytes.length < n) {
      throw new EOFException();
    }
    return bytes;
  }

  private String readLine() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b = in.read(); b != '\n'; b = in.read()) {
      if (b < 0) {
        throw new EOFException("connection closed");
      }
      if (b != '\r') {
        line.write(b);
      }
    }
    return line.toString(StandardCharsets.ISO_8859_1);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
