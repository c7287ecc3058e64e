package io.kvorum.node.membership;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** The threads of membership work. */
final class Threads {
  private Threads() {}

  static ExecutorService single(String name) {
    return Executors.newSingleThreadExecutor(Thread.ofPlatform().name(name).daemon().factory());
  }

  /** Sleeps; an interrupt (the node closing) ends the sleep early and is kept. */
  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
