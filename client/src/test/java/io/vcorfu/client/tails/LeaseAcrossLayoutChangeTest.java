package io.vcorfu.client.tails;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.client.testing.InJvmCluster;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.inmemory.FaultRule;
import io.vcorfu.protocol.proto.Request.PayloadCase;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A read lease is tied to the sequencer that granted it. Once its holder has learnt a layout of a
 * later epoch (the sequencer died and moved), it answers no tail from that lease's memory, even
 * while the lease has time left: the new sequencer issues tokens the old lease is never told of. It
 * answers from memory again once the new sequencer has granted it a lease.
 */
class LeaseAcrossLayoutChangeTest {
  private static final StreamId STREAM = StreamId.of("leased");
  private static final Duration WAIT = Duration.ofSeconds(20);

  @Test
  void aLeaseOfAMovedSequencerAnswersNoTailOnceItsHolderKnowsTheNewLayout() {
    try (InJvmCluster cluster = InJvmCluster.replicated()) {
      ClusterStreamLog leased =
          cluster.client(
              StreamLogOptions.defaults()
                  .withReadLease(Duration.ofSeconds(10))
                  .withRpc(ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(1))));
      ClusterStreamLog writer = cluster.client();
      FaultRule tailRequests =
          cluster
              .inJvmTransport()
              .faults()
              .add(FaultRule.requests().ofCase(PayloadCase.TAIL).delay(Duration.ZERO));
      writer.append(List.of(STREAM), bytes("one")).join();
      await().atMost(WAIT).until(() -> answeredFromMemory(leased, tailRequests));
      assertThat(tail(leased)).isZero();

      // The new sequencer may not renew the lease yet: the client keeps the old one.
      FaultRule noRenewal =
          cluster
              .inJvmTransport()
              .faults()
              .add(
                  FaultRule.requests()
                      .to(InJvmCluster.LOG_A)
                      .ofCase(PayloadCase.READ_LEASE)
                      .drop());
      cluster.kill(InJvmCluster.SEQUENCER);
      cluster.changeLayout(cluster.withoutNode(InJvmCluster.SEQUENCER));
      AppendResult two = writer.append(List.of(STREAM), bytes("two")).join();

      // The failed renewal at the dead sequencer makes the holder learn the new layout.
      await().atMost(WAIT).until(() -> leased.layout().current().epoch() == 2);
      assertThat(leased.holdsReadLease()).as("the old lease still has time left").isTrue();
      long before = tailRequests.hits();
      assertThat(tail(leased))
          .as("a tail answered after the holder learnt the new layout")
          .isEqualTo(two.streamAddresses().get(STREAM));
      assertThat(tailRequests.hits()).as("tail requests sent").isGreaterThan(before);

      // Renewed by the new sequencer, the lease answers from memory again, and correctly.
      cluster.inJvmTransport().faults().remove(noRenewal);
      await().atMost(WAIT).until(() -> answeredFromMemory(leased, tailRequests));
      AppendResult three = writer.append(List.of(STREAM), bytes("three")).join();
      assertThat(tail(leased)).isEqualTo(three.streamAddresses().get(STREAM));
    }
  }

  private static long tail(ClusterStreamLog log) {
    return log.tails(List.of(STREAM)).join().streamTails().get(STREAM);
  }

  /** Asks for the stream's tail once; true if no tail request was sent for it. */
  private static boolean answeredFromMemory(ClusterStreamLog log, FaultRule tailRequests) {
    long before = tailRequests.hits();
    tail(log);
    return tailRequests.hits() == before;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
