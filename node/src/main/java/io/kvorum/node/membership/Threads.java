package io.kvorum.node.membership;

/** The pauses of membership work on its own threads. */
final class Threads {
  private Threads() {}

  /** Sleeps; an interrupt (the node closing) ends the sleep early and is kept. */
  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
