package io.kvorum.node.coordinator;

import io.kvorum.node.testing.GrpcCluster;
import io.kvorum.node.testing.TestCluster;

/** {@link ConditionalWriteMembershipScenarios} on real gRPC between the nodes. */
class ConditionalWriteMembershipGrpcTest extends ConditionalWriteMembershipScenarios {
  @Override
  TestCluster.Factory clusters() {
    return GrpcCluster::start;
  }
}
