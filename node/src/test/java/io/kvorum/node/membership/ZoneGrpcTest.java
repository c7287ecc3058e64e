package io.kvorum.node.membership;

import io.kvorum.node.testing.GrpcCluster;
import io.kvorum.node.testing.TestCluster;

/** {@link ZoneScenarios} on real gRPC between the nodes. */
class ZoneGrpcTest extends ZoneScenarios {
  @Override
  TestCluster.Factory clusters() {
    return GrpcCluster::start;
  }
}
