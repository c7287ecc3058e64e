package io.kvorum.node.storage.memory;

import io.kvorum.node.storage.LastWriterWinsContract;
import io.kvorum.node.storage.StorageEngine;

class InMemoryLastWriterWinsTest extends LastWriterWinsContract {
  @Override
  protected StorageEngine newEngine() {
    return new InMemoryStorageEngine();
  }
}
