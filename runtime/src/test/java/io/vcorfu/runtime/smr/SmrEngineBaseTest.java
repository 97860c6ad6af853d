package io.vcorfu.runtime.smr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.client.StreamLog;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.runtime.RuntimeOptions;
import io.vcorfu.runtime.TransactionAbortedException;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.example.Counter;
import io.vcorfu.runtime.serialization.DefaultSerializer;
import io.vcorfu.runtime.testing.CountingStreamLog;
import io.vcorfu.runtime.testing.TestStreamLogs;
import io.vcorfu.runtime.view.ObjectDirectory;
import java.util.List;
import org.junit.jupiter.api.Test;

class SmrEngineBaseTest {
  private final TestStreamLogs cluster = TestStreamLogs.create();

  @Test
  void viewStartsFromAStateAndAddressAndReadsOnlyTheRestOfTheStream() {
    long[] addressOf = new long[100];
    try (VCorfuRuntime writer = cluster.newRuntime()) {
      Counter c = writer.objects().open("big", Counter.class);
      for (int i = 0; i < 100; i++) {
        c.addAndGet(1);
        addressOf[i] = cluster.newLog().tails(List.of()).join().globalTail();
      }
    }
    // A checkpoint of the first 60 updates: one add(60) reflecting every update up to the 60th.
    DefaultSerializer ser = new DefaultSerializer();
    SmrRecord.Update add60 =
        new SmrRecord.Update(
            StreamId.of("big"), "add(long)", new byte[][] {ser.serialize(60L)}, List.of());
    ViewBase base = new ViewBase(addressOf[59], 60, List.of(add60));

    CountingStreamLog log = new CountingStreamLog(cluster.newLog());
    RuntimeCore core = new RuntimeCore(log, RuntimeOptions.defaults(), null);
    ObjectDirectory directory = new ObjectDirectory(core);
    Counter fromBase = directory.openLocal(StreamId.of("big"), Counter.class, null, base);

    assertThat(fromBase.get()).isEqualTo(100);
    assertThat(fromBase.upcalls()).isEqualTo(1 + 40);
    assertThat(log.lowestStreamReadFrom.get()).isEqualTo(60);

    core.transactions().begin();
    assertThat(fromBase.get()).isEqualTo(100);
    core.transactions().end();
    core.markClosed();
    log.close();
  }

  @Test
  void transactionReadingATrimmedStreamAbortsWithATypedCause() {
    try (VCorfuRuntime writer = cluster.newRuntime()) {
      Counter c = writer.objects().open("trimmed", Counter.class);
      for (int i = 0; i < 10; i++) {
        c.add(1);
      }
    }
    StreamLog admin = cluster.newLog();
    admin.trimStream(StreamId.of("trimmed"), 5).join();
    admin.close();

    try (VCorfuRuntime rt = cluster.newRuntime()) {
      Counter c = rt.objects().open("trimmed", Counter.class);
      assertThatThrownBy(() -> rt.transaction(c::get))
          .isInstanceOfSatisfying(
              TransactionAbortedException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(TransactionAbortedException.Reason.TRIMMED);
                assertThat(e.stream()).isEqualTo(StreamId.of("trimmed"));
                assertThat(e.getCause()).isInstanceOf(TrimmedException.class);
              });
      assertThatThrownBy(c::get).isInstanceOf(TrimmedException.class);
    }
  }
}
