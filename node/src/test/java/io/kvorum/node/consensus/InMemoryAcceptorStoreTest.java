package io.kvorum.node.consensus;

class InMemoryAcceptorStoreTest extends AcceptorStoreContract {
  @Override
  protected AcceptorStore newStore() {
    return new InMemoryAcceptorStore();
  }
}
