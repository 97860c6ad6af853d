package io.vcorfu.server.cluster;

import io.vcorfu.server.cluster.RoleFaultScenario.Fault;
import io.vcorfu.server.cluster.RoleFaultScenario.Role;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Four nodes, replication 2: the sequencer, a log chain's head or a stream chain's last replica is
 * killed, or cut off the network, under load; no acknowledged write is lost or read differently by
 * any surviving replica (see {@link RoleFaultScenario}).
 */
class ReplicationTwoFaultTest {
  @TempDir Path tmp;

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("io.vcorfu.server.cluster.RoleFaultScenario#matrix")
  void everyAcknowledgedWriteSurvivesOnEveryReplica(Role role, Fault fault) throws Exception {
    RoleFaultScenario.run(tmp, 2, role, fault);
  }
}
