package io.kvorum.node.storage.memory;

import io.kvorum.node.storage.StorageEngine;
import io.kvorum.node.storage.StorageEngineContract;

class InMemoryStorageEngineTest extends StorageEngineContract {
  @Override
  protected StorageEngine newEngine() {
    return new InMemoryStorageEngine();
  }
}
