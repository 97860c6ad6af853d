package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.inmemory.FaultRule;
import io.vcorfu.protocol.proto.Request.PayloadCase;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node that answers probes but never answers a seal (its disk stuck behind the fsync a seal
 * makes, say) cannot join the chains it would heal. Each attempt must fail before any node the
 * writers use is sealed: sealed at the next epoch by an attempt that then fails, the healthy nodes
 * would refuse every write until the manager committed their layout again at that epoch, once per
 * attempt.
 */
class UnsealableJoinerTest {
  private static final StreamId S = StreamId.of("join");

  @TempDir Path tmp;

  @Test
  void failedAttemptsToJoinANodeThatNeverAnswersASealSealNoOtherNode() throws Exception {
    try (ZkCluster c = ZkCluster.start(tmp, 3, 3)) {
      Layout first = c.awaitStarted();
      c.awaitAdopted(first.epoch());
      Endpoint returning =
          c.endpoints().stream().filter(e -> !e.equals(first.sequencer())).findFirst().get();
      ClusterStreamLog log = c.client(first.sequencer());
      log.append(List.of(S), bytes("before")).get(30, TimeUnit.SECONDS);

      c.kill(returning);
      Layout without =
          c.awaitLayout("a layout without " + returning, l -> l.removed().contains(returning));
      c.awaitAdopted(without.epoch());
      FaultRule seals =
          c.transport()
              .faults()
              .add(FaultRule.requests().to(returning).ofCase(PayloadCase.SEAL).drop());
      c.restart(returning);
      Awaitility.await("three attempts to join " + returning)
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(20))
          .until(() -> seals.hits() >= 3);

      assertThat(c.agreed().value().epoch())
          .as("the agreed epoch after three failed joins (it was %d)", without.epoch())
          .isEqualTo(without.epoch());
      try (RpcClient rpc = c.transport().newClient(ClientOptions.defaults())) {
        for (Endpoint e : without.allServers()) {
          assertThat(new NodeCalls(rpc).ping(e).get(5, TimeUnit.SECONDS).getSealedEpoch())
              .as("the epoch %s is sealed at", e)
              .isEqualTo(without.epoch());
        }
      }
      log.append(List.of(S), bytes("during")).get(30, TimeUnit.SECONDS);
      c.transport().faults().remove(seals);
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
