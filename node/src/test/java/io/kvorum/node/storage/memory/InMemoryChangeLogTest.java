package io.kvorum.node.storage.memory;

import io.kvorum.node.storage.ChangeLogContract;
import io.kvorum.node.storage.StorageEngine;

class InMemoryChangeLogTest extends ChangeLogContract {
  @Override
  protected StorageEngine newEngine() {
    return new InMemoryStorageEngine();
  }
}
