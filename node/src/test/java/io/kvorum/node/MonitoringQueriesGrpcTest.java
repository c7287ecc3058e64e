package io.kvorum.node;

import io.kvorum.node.testing.GrpcCluster;
import io.kvorum.node.testing.TestCluster;

/** {@link MonitoringQueriesScenarios} on real gRPC between the nodes. */
class MonitoringQueriesGrpcTest extends MonitoringQueriesScenarios {
  @Override
  TestCluster.Factory clusters() {
    return GrpcCluster::start;
  }
}
