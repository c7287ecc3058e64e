package io.kvorum.node.storage;

/**
 * Everything a node keeps on its own disk: its replicas' records and the hints it holds for other
 * nodes. Closing closes both.
 */
public record LocalStorage(StorageEngine records, HintStore hints) implements AutoCloseable {
  @Override
  public void close() {
    records.close();
  }
}
