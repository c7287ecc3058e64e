package io.kvorum.node.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Checks a recorded history of one register under conditional writes for linearizability with
 * Porcupine (github.com/anishathalye/porcupine), run as the small Go program in {@code
 * src/test/go/linearizability} ({@code go run}, fetching the module through the Go module proxy on
 * first use). Go must be installed: a missing {@code go} fails the check, never skips it.
 */
public final class Porcupine {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path PROGRAM =
      Path.of(System.getProperty("basedir", ".")).resolve("src/test/go/linearizability");

  private Porcupine() {}

  /**
   * One compare-and-set as a client saw it.
   *
   * @param call when it was sent, nanoseconds on one monotonic clock
   * @param ret when its answer arrived
   * @param read a write that expects a version never issued: always refused, it reads the register
   * @param expect the entity tag the write required, "" for absent ({@code If-None-Match: *})
   * @param result "ok", "refused" or "unknown" (a 504 or a lost answer)
   * @param etag the new version's tag when ok, the current one when refused ("" when absent)
   */
  public record Operation(
      int client, long call, long ret, boolean read, String expect, String result, String etag) {}

  /** The checker's verdict: "linearizable" or "not linearizable". */
  public static String check(List<Operation> history, Path directory) {
    try {
      ArrayNode ops = JSON.createArrayNode();
      for (Operation op : history) {
        ObjectNode node = ops.addObject();
        node.put("client", op.client())
            .put("call", op.call())
            .put("return", op.ret())
            .put("read", op.read())
            .put("expect", op.expect())
            .put("result", op.result())
            .put("etag", op.etag());
      }
      Path file = directory.resolve("history.json");
      JSON.writeValue(file.toFile(), ops);
      Path errors = directory.resolve("porcupine.err");
      ProcessBuilder go =
          new ProcessBuilder("go", "run", ".", file.toAbsolutePath().toString())
              .directory(PROGRAM.toFile())
              .redirectError(errors.toFile());
      go.environment().put("GOFLAGS", "-mod=mod");
      Process process = go.start();
      String verdict = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(5, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new IllegalStateException("the Porcupine check did not end in 5 minutes");
      }
      if (process.exitValue() > 1) {
        throw new IllegalStateException(
            "the Porcupine check failed (exit "
                + process.exitValue()
                + "): "
                + Files.readString(errors));
      }
      return verdict.strip();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run the Porcupine check (is go installed?)", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
