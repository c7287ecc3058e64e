package io.kvorum.node.coordinator;

import io.kvorum.node.testing.GrpcCluster;
import io.kvorum.node.testing.TestCluster;

/** {@link PaxosPurgeScenarios} on real gRPC between the nodes. */
class PaxosPurgeGrpcTest extends PaxosPurgeScenarios {
  @Override
  TestCluster.Factory clusters() {
    return GrpcCluster::start;
  }
}
