package io.vcorfu.runtime.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.protocol.NotServingException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.Retention;
import io.vcorfu.runtime.RuntimeOptions;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.example.Account;
import io.vcorfu.runtime.example.Counter;
import io.vcorfu.runtime.testing.CountingStreamLog;
import io.vcorfu.runtime.testing.InMemoryStreamLog;
import io.vcorfu.runtime.testing.TestRuntimes;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class CheckpointTest {
  @RegisterExtension final TestRuntimes runtimes = new TestRuntimes();

  private VCorfuRuntime runtime() {
    return runtimes.runtime();
  }

  /**
   * Automatic checkpoints are off here: one falling due mid-test (the runtimes' once-a-second pass
   * finds an object due after 64 updates) appends to the log between the view's last update and the
   * tail read that should name it, as happened against a real node.
   */
  @Test
  void aNewViewStartsFromTheLatestCheckpointAndPlaysOnlyTheStreamAfterIt() {
    RuntimeOptions noAutomaticCheckpoints = RuntimeOptions.defaults().withRetention(Retention.OFF);
    VCorfuRuntime writer = runtimes.runtime(noAutomaticCheckpoints);
    Counter c = writer.objects().open("cp", Counter.class);
    for (int i = 0; i < 300; i++) {
      c.add(1);
    }
    long early = runtimes.newLog().tails(List.of()).join().globalTail();
    c.add(1);
    assertThat(c.get()).isEqualTo(301);
    long synced = runtimes.newLog().tails(List.of()).join().globalTail();
    assertThat(writer.checkpoint(c)).as("the version the view reflects").hasValue(synced);
    c.add(10);

    CountingStreamLog log = new CountingStreamLog(runtimes.newLog());
    VCorfuRuntime reader = runtimes.runtime(log, noAutomaticCheckpoints);
    Counter opened = reader.objects().open("cp", Counter.class);
    assertThat(opened.get()).isEqualTo(311);
    assertThat(opened.upcalls()).isEqualTo(302);
    assertThat(log.lowestReadFromByStream.get(StreamId.of("cp")))
        .as("played from the checkpoint's position")
        .isEqualTo(301);

    Counter old = reader.objects().builder("cp", Counter.class).asOf(early).open();
    assertThat(old.get()).as("a snapshot older than the checkpoint").isEqualTo(300);
  }

  @Test
  void theLatestOfSeveralCheckpointsWins() {
    VCorfuRuntime writer = runtime();
    Account a = writer.objects().open("cp-account", Account.class);
    a.deposit(5);
    assertThat(a.balance()).isEqualTo(5);
    writer.checkpoint(a);
    a.deposit(7);
    assertThat(a.balance()).isEqualTo(12);
    OptionalLong second = writer.checkpoint(a);
    assertThat(second).isPresent();
    assertThat(readFromItsCheckpointAlone("cp-account", Account.class, Account::balance))
        .isEqualTo(12);
  }

  /**
   * A runtime whose view is older than the checkpoint stream's last checkpoint (another runtime's)
   * writes nothing and answers with the newer one: the stream's checkpoints stay in version order.
   */
  @Test
  void aCheckpointOlderThanTheStreamsLastIsNotWritten() {
    VCorfuRuntime ahead = runtime();
    VCorfuRuntime behind = runtime();
    Counter a = ahead.objects().open("cp-order", Counter.class);
    Counter b = behind.objects().open("cp-order", Counter.class);
    a.add(1);
    assertThat(b.get()).isEqualTo(1);
    a.add(1);
    assertThat(a.get()).isEqualTo(2);
    OptionalLong newer = ahead.checkpoint(a);
    assertThat(newer).isPresent();
    assertThat(behind.checkpoint(b)).as("the newer checkpoint's version").isEqualTo(newer);
    assertThat(checkpointTail("cp-order")).as("only the newer checkpoint").isEqualTo(0);
  }

  /**
   * Two writers race: between the moment the slower one reads the checkpoint stream's last
   * checkpoint and its append, the other appends a newer one. The slower one's conditional append
   * is refused (nothing of it is stored), it reads again, finds the newer one and writes nothing; a
   * view opens from the newer one.
   */
  @Test
  void aCheckpointOvertakenBetweenItsReadAndItsAppendIsNotWritten() {
    VCorfuRuntime ahead = runtime();
    Counter a = ahead.objects().open("cp-race", Counter.class);
    java.util.concurrent.atomic.AtomicInteger conditional =
        new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicReference<OptionalLong> overtaking =
        new java.util.concurrent.atomic.AtomicReference<>();
    StreamId cp = Checkpoints.streamOf(StreamId.of("cp-race"));
    VCorfuRuntime behind =
        runtimes.runtime(
            new io.vcorfu.runtime.testing.ForwardingStreamLog(runtimes.newLog()) {
              @Override
              public java.util.concurrent.CompletableFuture<io.vcorfu.client.AppendResult>
                  appendConditional(
                      java.util.Collection<StreamId> streams,
                      byte[] payload,
                      io.vcorfu.client.IssueCondition condition) {
                if (streams.contains(cp) && conditional.getAndIncrement() == 0) {
                  a.add(1);
                  assertThat(a.get()).isEqualTo(2);
                  overtaking.set(ahead.checkpoint(a));
                }
                return delegate.appendConditional(streams, payload, condition);
              }
            });
    Counter b = behind.objects().open("cp-race", Counter.class);
    a.add(1);
    assertThat(b.get()).isEqualTo(1);
    OptionalLong written = behind.checkpoint(b);
    assertThat(conditional.get()).as("the refused append, then no other").isEqualTo(1);
    assertThat(written).as("the overtaking checkpoint's version").isEqualTo(overtaking.get());
    assertThat(checkpointTail("cp-race")).as("only the overtaking checkpoint").isEqualTo(0);
    assertThat(readFromItsCheckpointAlone("cp-race", Counter.class, Counter::get)).isEqualTo(2);
  }

  /**
   * What {@code read} answers of the object {@code name} opened by a fresh runtime, which reads
   * nothing of its stream to open it and answer: the newest checkpoint covers the whole stream.
   */
  private <T, R> R readFromItsCheckpointAlone(String name, Class<T> type, Function<T, R> read) {
    CountingStreamLog log = new CountingStreamLog(runtimes.newLog());
    VCorfuRuntime reader = VCorfuRuntime.using(log);
    runtimes.register(reader);
    R answer = read.apply(reader.objects().open(name, type));
    assertThat(log.lowestReadFromByStream)
        .as("the newest checkpoint covers the whole stream: nothing to read")
        .doesNotContainKey(StreamId.of(name));
    return answer;
  }

  private long checkpointTail(String object) {
    StreamId cp = Checkpoints.streamOf(StreamId.of(object));
    return runtimes.newLog().tails(List.of(cp)).join().streamTails().getOrDefault(cp, -1L);
  }

  @Test
  void aCheckpointReflectsTheViewAsItIsWithoutSyncingIt() {
    VCorfuRuntime rt = runtime();
    Counter c = rt.objects().open("cp-unsynced", Counter.class);
    c.add(4);
    assertThat(rt.checkpoint(c)).as("the view has applied nothing yet").hasValue(-1);
    assertThat(runtime().objects().open("cp-unsynced", Counter.class).get()).isEqualTo(4);
  }

  @Test
  void onlyALiveLocalViewOfThisRuntimeCanBeCheckpointed() {
    VCorfuRuntime rt = runtime();
    Counter c = rt.objects().open("cp-live", Counter.class);
    c.add(1);
    Counter snapshot = rt.objects().builder("cp-live", Counter.class).asOf(-1).open();
    assertThatThrownBy(() -> rt.checkpoint(snapshot)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> runtime().checkpoint(c)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> rt.checkpoint(new Counter()))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aRemoteViewOnALogWithoutServersFailsAsNotServing() {
    try (VCorfuRuntime rt = VCorfuRuntime.using(new InMemoryStreamLog().client())) {
      Counter c = rt.objects().builder("nowhere", Counter.class).remote().open();
      assertThatThrownBy(c::get).isInstanceOf(NotServingException.class);
    }
  }
}
