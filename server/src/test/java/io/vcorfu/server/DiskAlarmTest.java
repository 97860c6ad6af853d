package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.protocol.DiskFullException;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The disk-space alarm: raised below the threshold, writes are refused with a typed error that says
 * what to do and nothing is stored; reads and trims go on; once space is back above the threshold
 * (plus a margin) it clears itself and writes are accepted again.
 */
class DiskAlarmTest {
  private static final Endpoint NODE = Endpoint.parse("node:9000");
  private static final StreamId S = StreamId.of("alarm");

  @TempDir Path tmp;

  @Test
  void raisedBelowTheThresholdAndClearedAboveItWithAMargin() {
    AtomicLong free = new AtomicLong(1_000);
    AtomicLong clock = new AtomicLong(0);
    DiskAlarm alarm = new DiskAlarm("n", clock::get, free::get, () -> 10_000, 500);
    assertThat(alarm.raised()).isFalse();
    free.set(499);
    assertThat(alarm.raised()).as("looked at again only after the check interval").isFalse();
    clock.addAndGet(DiskAlarm.CHECK_MILLIS);
    assertThat(alarm.raised()).isTrue();
    Throwable t = catchThrowable(alarm::refuseWriteIfRaised);
    assertThat(t).isInstanceOf(DiskFullException.class).hasMessageContaining("499 bytes free");
    free.set(520); // above the threshold, within the margin: still raised
    clock.addAndGet(DiskAlarm.CHECK_MILLIS);
    assertThat(alarm.raised()).isTrue();
    free.set(600);
    clock.addAndGet(DiskAlarm.CHECK_MILLIS);
    assertThat(alarm.raised()).isFalse();
  }

  @Test
  void aNodeWhoseDiskIsFullRefusesWritesKeepsServingReadsAndResumesOnItsOwn() {
    try (InJvmTransport transport = new InJvmTransport();
        Node node = Node.start(NodeConfig.durable(NODE, tmp.resolve("data")), transport);
        ClusterStreamLog log =
            ClusterStreamLog.connect(transport, NODE, StreamLogOptions.defaults())) {
      node.ready().join();
      log.append(List.of(S), "kept".getBytes(StandardCharsets.UTF_8)).join();
      long tail = node.logTail();

      node.diskAlarm().threshold(Long.MAX_VALUE / 2); // no disk has that much free
      Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> node.space().getDiskAlarm());
      Throwable t =
          catchThrowable(
              () -> log.append(List.of(S), "refused".getBytes(StandardCharsets.UTF_8)).join());
      assertThat(t).isInstanceOf(CompletionException.class);
      assertThat(t.getCause())
          .isInstanceOf(DiskFullException.class)
          .hasMessageContaining("refuses writes")
          .hasMessageContaining("writes resume on their own");
      assertThat(node.logTail()).as("nothing of the refused write is stored").isEqualTo(tail);
      assertThat(log.readStream(S, 0, 0).join().get(0).payload())
          .isEqualTo("kept".getBytes(StandardCharsets.UTF_8));
      assertThat(log.trimStream(S, 1).join()).as("trims go on: they free space").isEqualTo(1);

      node.diskAlarm().threshold(1);
      Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .ignoreExceptions()
          .until(
              () ->
                  log.append(List.of(S), "after".getBytes(StandardCharsets.UTF_8))
                          .join()
                          .globalAddress()
                      > tail);
    }
  }
}
