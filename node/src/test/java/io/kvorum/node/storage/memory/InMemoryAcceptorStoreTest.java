package io.kvorum.node.storage.memory;

import io.kvorum.node.storage.AcceptorStore;
import io.kvorum.node.storage.AcceptorStoreContract;

class InMemoryAcceptorStoreTest extends AcceptorStoreContract {
  @Override
  protected AcceptorStore newStore() {
    return new InMemoryAcceptorStore();
  }
}
