package io.kvorum.node.cli.admin;

import io.kvorum.node.testing.GrpcCluster;
import io.kvorum.node.testing.TestCluster;

/** {@link AdminCommandsClusterScenarios} on real gRPC between the nodes. */
class AdminCommandsGrpcTest extends AdminCommandsClusterScenarios {
  @Override
  TestCluster.Factory clusters() {
    return GrpcCluster::start;
  }
}
