package io.kvorum.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** The machine, JVM and command of a run, for the report. */
final class Environment {
  private Environment() {}

  static String describe(String commandLine, List<String> nodeJvm) {
    return String.format(
        Locale.ROOT,
        "**Command**: `%s`%n%n**Machine**: %s, %d cores, %s memory, %s %s%n%n"
            + "**JVM**: %s %s (%s); node options `%s`",
        commandLine != null ? commandLine : "bench/run.sh",
        cpuModel(),
        Runtime.getRuntime().availableProcessors(),
        memory(),
        System.getProperty("os.name"),
        System.getProperty("os.version"),
        System.getProperty("java.vm.name"),
        System.getProperty("java.vm.version"),
        System.getProperty("java.vendor"),
        String.join(" ", nodeJvm));
  }

  private static String cpuModel() {
    return procLine("/proc/cpuinfo", "model name");
  }

  private static String memory() {
    String line = procLine("/proc/meminfo", "MemTotal");
    try {
      long kib = Long.parseLong(line.replaceAll("[^0-9]", ""));
      return (kib >> 20) + " GiB";
    } catch (NumberFormatException e) {
      return line;
    }
  }

  private static String procLine(String file, String field) {
    try {
      return Files.readAllLines(Path.of(file)).stream()
          .filter(line -> line.startsWith(field))
          .map(line -> line.substring(line.indexOf(':') + 1).trim())
          .findFirst()
          .orElse("unknown");
    } catch (IOException e) {
      return "unknown";
    }
  }
}
