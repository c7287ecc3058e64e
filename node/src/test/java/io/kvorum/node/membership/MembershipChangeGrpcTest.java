package io.kvorum.node.membership;

import io.kvorum.node.testing.GrpcCluster;
import io.kvorum.node.testing.TestCluster;

/** {@link MembershipChangeScenarios} on real gRPC between the nodes. */
class MembershipChangeGrpcTest extends MembershipChangeScenarios {
  @Override
  TestCluster.Factory clusters() {
    return GrpcCluster::start;
  }
}
