package io.vcorfu.server.views;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.checkpoint.Checkpoints;
import io.vcorfu.runtime.example.Bank;
import io.vcorfu.runtime.example.Counter;
import io.vcorfu.runtime.example.User;
import io.vcorfu.server.Node;
import io.vcorfu.server.NodeConfig;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Object checkpoints, written by a runtime or by the remote-view host, and views opened from them.
 */
class CheckpointTest {
  private final InJvmTransport transport = new InJvmTransport();
  private final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
    transport.close();
  }

  private Node node(String host, long checkpointEvery, Duration checkpointInterval) {
    Node node =
        Node.start(
            NodeConfig.inMemory(new Endpoint(host, 9000))
                .withViews(null, checkpointEvery, checkpointInterval),
            transport);
    closing.add(node);
    node.ready().join();
    return node;
  }

  private ClusterStreamLog log(Node node) {
    ClusterStreamLog log =
        ClusterStreamLog.connect(transport, node.endpoint(), StreamLogOptions.defaults());
    closing.add(log);
    return log;
  }

  private VCorfuRuntime runtime(StreamLog log) {
    VCorfuRuntime rt = VCorfuRuntime.using(log);
    closing.add(rt);
    return rt;
  }

  private static long checkpointTail(StreamLog log, String name) {
    StreamId cp = Checkpoints.streamOf(StreamId.of(name));
    return log.tails(List.of(cp)).join().streamTails().getOrDefault(cp, -1L);
  }

  @Test
  void objectWithManyUpdatesOpensFromItsCheckpointReadingAHandfulOfEntries() {
    Node node =
        node("checkpoint-round-trip", NodeConfig.DEFAULT_CHECKPOINT_EVERY, Duration.ofHours(1));
    VCorfuRuntime writer = runtime(log(node));
    Counter c = writer.objects().open("many", Counter.class);
    long addressOf100th = -1;
    for (int i = 0; i < 5_000; i++) {
      c.add(1);
      if (i == 99) {
        addressOf100th = log(node).tails(List.of()).join().globalTail();
      }
    }
    assertThat(c.get()).isEqualTo(5_000);
    OptionalLong version = writer.checkpoint(c);
    assertThat(version).isPresent();
    c.add(2);
    c.add(3);

    EntryCountingLog counting = new EntryCountingLog(log(node));
    VCorfuRuntime reader = runtime(counting);
    Counter opened = reader.objects().open("many", Counter.class);
    assertThat(opened.get()).isEqualTo(5_005);
    assertThat(opened.upcalls()).as("the restored fields, then two updates").isEqualTo(5_002);
    assertThat(counting.entriesRead(StreamId.of("many")))
        .as("entries of the object's stream read")
        .isLessThanOrEqualTo(5);
    assertThat(counting.entriesRead(Checkpoints.streamOf(StreamId.of("many")))).isEqualTo(1);

    Counter before = reader.objects().builder("many", Counter.class).asOf(addressOf100th).open();
    assertThat(before.get())
        .as("a snapshot older than the checkpoint, played from the log")
        .isEqualTo(100);
  }

  @Test
  void checkpointRestoresEveryFieldAndLaterUpdatesApplyOnTop() {
    Node node = node("checkpoint-fields", NodeConfig.DEFAULT_CHECKPOINT_EVERY, Duration.ofHours(1));
    VCorfuRuntime writer = runtime(log(node));
    User u = writer.objects().open("ada", User.class);
    u.register("ada", "secret");
    assertThat(u.login("secret", Instant.ofEpochSecond(100))).isTrue();
    writer.checkpoint(u);
    u.logout(Instant.ofEpochSecond(200));

    User opened = runtime(log(node)).objects().open("ada", User.class);
    assertThat(opened.login("wrong", Instant.ofEpochSecond(300))).isFalse();
    assertThat(opened.getName()).isEqualTo("ada");
    assertThat(opened.login("secret", Instant.ofEpochSecond(400))).isTrue();
  }

  @Test
  void aClassWhoseFieldsCannotBeEncodedIsNotCheckpointed() throws Exception {
    Node node =
        node("checkpoint-refused", NodeConfig.DEFAULT_CHECKPOINT_EVERY, Duration.ofHours(1));
    ClusterStreamLog log = log(node);
    VCorfuRuntime rt = runtime(log(node));
    Bank bank = rt.objects().open("bank", Bank.class);
    java.lang.reflect.Field accounts = Bank.class.getDeclaredField("accounts");
    accounts.setAccessible(true);
    accounts.set(
        bank,
        new io.vcorfu.runtime.example.Account[] {
          rt.objects().open("a0", io.vcorfu.runtime.example.Account.class)
        });
    bank.marker();
    assertThat(rt.checkpoint(bank)).isEmpty();
    assertThat(checkpointTail(log, "bank")).isEqualTo(-1);
  }

  @Test
  void hostCheckpointsAHostedObjectAfterEveryNUpdates() {
    Node node = node("host-every-n", 50, Duration.ofHours(1));
    ClusterStreamLog probe = log(node);
    VCorfuRuntime rt = runtime(log(node));
    Counter c = rt.objects().builder("hosted", Counter.class).remote().open();
    for (int i = 0; i < 30; i++) {
      c.add(1);
    }
    assertThat(c.get()).isEqualTo(30);
    assertThat(checkpointTail(probe, "hosted"))
        .as("fewer than N updates: no checkpoint")
        .isEqualTo(-1);
    for (int i = 0; i < 90; i++) {
      c.add(1);
    }
    assertThat(c.get()).isEqualTo(120);
    assertThat(checkpointTail(probe, "hosted")).as("one checkpoint after N updates").isEqualTo(0);

    EntryCountingLog counting = new EntryCountingLog(log(node));
    Counter opened = runtime(counting).objects().open("hosted", Counter.class);
    assertThat(opened.get()).isEqualTo(120);
    assertThat(counting.entriesRead(StreamId.of("hosted")))
        .as("opened from the host's checkpoint")
        .isZero();
  }

  @Test
  void hostCheckpointsChangedObjectsOnItsTimer() {
    Node node = node("host-timer", 1_000_000, Duration.ofMillis(100));
    ClusterStreamLog probe = log(node);
    Counter c = runtime(log(node)).objects().builder("timed", Counter.class).remote().open();
    for (int i = 0; i < 5; i++) {
      c.add(1);
    }
    assertThat(c.get()).isEqualTo(5);
    await().atMost(Duration.ofSeconds(10)).until(() -> checkpointTail(probe, "timed") >= 0);
  }
}
