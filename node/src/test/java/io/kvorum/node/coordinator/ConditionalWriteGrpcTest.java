package io.kvorum.node.coordinator;

import io.kvorum.node.testing.GrpcCluster;
import io.kvorum.node.testing.TestCluster;

/** {@link ConditionalWriteScenarios} on real gRPC between the nodes. */
class ConditionalWriteGrpcTest extends ConditionalWriteScenarios {
  @Override
  TestCluster.Factory clusters() {
    return GrpcCluster::start;
  }
}
