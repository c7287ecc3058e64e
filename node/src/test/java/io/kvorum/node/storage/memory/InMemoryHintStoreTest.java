package io.kvorum.node.storage.memory;

import io.kvorum.node.storage.HintStore;
import io.kvorum.node.storage.HintStoreContract;

class InMemoryHintStoreTest extends HintStoreContract {
  @Override
  protected HintStore newStore() {
    return new InMemoryHintStore();
  }
}
