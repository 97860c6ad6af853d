package io.vcorfu.runtime.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.protocol.NotServingException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.example.Account;
import io.vcorfu.runtime.example.Counter;
import io.vcorfu.runtime.testing.CountingStreamLog;
import io.vcorfu.runtime.testing.InMemoryStreamLog;
import io.vcorfu.runtime.testing.TestRuntimes;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class CheckpointTest {
  @RegisterExtension final TestRuntimes runtimes = new TestRuntimes();

  private VCorfuRuntime runtime() {
    return runtimes.runtime();
  }

  @Test
  void aNewViewStartsFromTheLatestCheckpointAndPlaysOnlyTheStreamAfterIt() {
    VCorfuRuntime writer = runtime();
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
    VCorfuRuntime reader = VCorfuRuntime.using(log);
    runtimes.register(reader);
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
    CountingStreamLog log = new CountingStreamLog(runtimes.newLog());
    VCorfuRuntime reader = VCorfuRuntime.using(log);
    runtimes.register(reader);
    assertThat(reader.objects().open("cp-account", Account.class).balance()).isEqualTo(12);
    assertThat(log.lowestReadFromByStream)
        .as("the newest checkpoint covers the whole stream: nothing to read")
        .doesNotContainKey(StreamId.of("cp-account"));
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
