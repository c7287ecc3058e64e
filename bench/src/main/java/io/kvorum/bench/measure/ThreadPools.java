package io.kvorum.bench.measure;

import java.util.regex.Pattern;

/**
 * Groups a process's threads into pools by name, so that CPU can be accounted for per pool: the
 * trailing number that tells a pool's threads apart goes ({@code kvorum-io-3} → {@code kvorum-io},
 * {@code G1 Conc#0} → {@code GC}), as does a separator the cut left at the end ({@code
 * kvorum-storage-}), and the JVM's own threads get short names ({@code C2 CompilerThre} → {@code
 * C2}, {@code C1 …} → {@code C1}, {@code GC Thread#0} and every {@code G1 …} thread → {@code GC}).
 * Names come as the kernel keeps them, cut at 15 characters.
 */
public final class ThreadPools {
  /** The JIT compilers' pools: their share of the CPU is the warm-up's cost. */
  public static final String C1 = "C1";

  public static final String C2 = "C2";

  private static final Pattern TRAILING_NUMBER = Pattern.compile("[-#_ .:]?\\d+$");
  private static final Pattern TRAILING_SEPARATOR = Pattern.compile("[-#_ .:]+$");

  private ThreadPools() {}

  /** The pool a thread of this name belongs to. */
  public static String pool(String threadName) {
    String name = threadName.strip();
    if (name.startsWith("C2 CompilerThre")) {
      return C2;
    }
    if (name.startsWith("C1 CompilerThre")) {
      return C1;
    }
    if (name.startsWith("GC Thread") || name.startsWith("G1 ")) {
      return "GC";
    }
    while (true) {
      String shorter = TRAILING_NUMBER.matcher(name).replaceFirst("");
      if (shorter.isEmpty() || shorter.equals(name)) {
        break;
      }
      name = shorter;
    }
    // A name cut at 15 characters just after its separator ("kvorum-storage-1" →
    // "kvorum-storage-").
    String trimmed = TRAILING_SEPARATOR.matcher(name).replaceFirst("");
    return !trimmed.isEmpty() ? trimmed : name.isEmpty() ? "?" : name;
  }

  /** Whether the pool is one of the JIT compilers'. */
  public static boolean jit(String pool) {
    return pool.equals(C1) || pool.equals(C2);
  }
}
