package io.kvorum.bench.cluster;

import com.sun.tools.attach.AgentLoadException;
import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * async-profiler (the library from Maven Central) attached to a running node through the JDK's
 * attach API, as its {@code asprof} launcher does: {@code start} begins sampling one event, {@code
 * stop} writes the flame graph as HTML.
 */
public final class Profiler {
  private final Path library;

  private Profiler(Path library) {
    this.library = library;
  }

  /** Unpacks the native library for this platform into a temporary directory. */
  public static Profiler unpack() throws IOException {
    Path dir = Files.createTempDirectory("kvorum-async-profiler");
    String arch = System.getProperty("os.arch").contains("aarch64") ? "linux-arm64" : "linux-x64";
    Path library = dir.resolve("libasyncProfiler.so");
    try (InputStream in = Profiler.class.getResourceAsStream("/" + arch + "/libasyncProfiler.so")) {
      if (in == null) {
        throw new IOException("async-profiler has no library for " + arch + " on the class path");
      }
      Files.copy(in, library, StandardCopyOption.REPLACE_EXISTING);
    }
    return new Profiler(library);
  }

  /**
   * Starts sampling {@code event} ({@code cpu}, {@code alloc}, {@code lock}, …) in process {@code
   * pid}.
   */
  public void start(long pid, String event) throws IOException {
    command(pid, "start,event=" + event + ",interval=" + interval(event));
  }

  /**
   * Stops sampling in {@code pid} and writes the flame graph to {@code html}, and the same samples
   * as collapsed stacks (one line per stack and its count, for scripts) next to it.
   */
  public void stop(long pid, Path html, String title) throws IOException {
    String collapsed = html.toAbsolutePath().toString().replaceFirst("\\.html$", ".collapsed");
    command(pid, "dump,collapsed,file=" + collapsed);
    command(pid, "stop,title=" + title.replace(',', ' ') + ",file=" + html.toAbsolutePath());
  }

  private static String interval(String event) {
    return switch (event) {
      case "alloc" -> "512k";
      case "lock" -> "100us";
      default -> "1ms";
    };
  }

  private void command(long pid, String arguments) throws IOException {
    try {
      VirtualMachine vm = VirtualMachine.attach(String.valueOf(pid));
      try {
        vm.loadAgentPath(library.toString(), arguments);
      } finally {
        vm.detach();
      }
    } catch (AttachNotSupportedException | AgentLoadException e) {
      throw new IOException("async-profiler '" + arguments + "' in " + pid + ": " + e, e);
    } catch (com.sun.tools.attach.AgentInitializationException e) {
      throw new IOException(
          "async-profiler '" + arguments + "' in " + pid + " failed with " + e.returnValue(), e);
    }
  }
}
