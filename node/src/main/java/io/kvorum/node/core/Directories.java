package io.kvorum.node.core;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Directory trees a node makes and removes itself: snapshots in the making, a training run's. */
public final class Directories {
  private Directories() {}

  /** Deletes {@code dir} and everything below it; nothing if it does not exist. */
  public static void removeTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }
}
