package io.vcorfu.logunit;

import static io.vcorfu.logunit.Fixtures.data;
import static io.vcorfu.logunit.Fixtures.get;
import static io.vcorfu.logunit.Fixtures.slot;
import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.LogTailRequest;
import io.vcorfu.protocol.proto.LogTailResponse;
import io.vcorfu.protocol.proto.ReadResult;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a log replica rebuilt from the stream replicas stores: decided entries committed, undecided
 * ones as the writer left them, and {@code LOST} where no stream replica held anything; each only
 * where it holds nothing yet, durably, and reported to a bootstrapping sequencer.
 */
class LostAddressesTest {
  private static final StreamId S = StreamId.of("s");

  @TempDir Path dir;
  private ReplicaStore store;

  @AfterEach
  void close() throws IOException {
    if (store != null) {
      store.close();
    }
  }

  private ReplicaStore open() throws IOException {
    store = ReplicaStore.open(Fixtures.options(StorageMode.DURABLE, dir));
    return store;
  }

  private ReadResult log(long address) {
    return get(store.logReplica().read(address, address)).get(0);
  }

  @Test
  void undecidedEntriesAndLostAddressesAreStoredOnlyWhereNothingIsHeld() throws IOException {
    open();
    LogEntryMsg held = data(1, "held", slot(S, 0));
    get(store.logReplica().write(held, true));
    LogEntryMsg undecided = data(2, "undecided", slot(S, 1));

    assertThat(get(store.installUndecided(List.of(undecided, data(1, "other", slot(S, 0))))))
        .isEqualTo(1);
    assertThat(get(store.markLost(List.of(0L, 1L, 2L, 3L)))).isEqualTo(2);

    assertThat(log(0).getStatus()).isEqualTo(ReadResult.Status.COMMITTED);
    assertThat(log(0).getEntry().getKind()).isEqualTo(EntryKind.LOST);
    assertThat(log(1).getEntry()).isEqualTo(held);
    assertThat(log(2).getStatus()).isEqualTo(ReadResult.Status.UNCOMMITTED);
    assertThat(log(2).getEntry()).isEqualTo(undecided);
    assertThat(log(3).getEntry().getKind()).isEqualTo(EntryKind.LOST);

    // Durable: the same after a restart, and the lost addresses reported with the stream tails.
    store.close();
    open();
    assertThat(log(0).getEntry().getKind()).isEqualTo(EntryKind.LOST);
    assertThat(log(2).getEntry()).isEqualTo(undecided);
    LogTailResponse tails =
        get(store.logReplica().tail(LogTailRequest.newBuilder().setStreams(true).build()));
    assertThat(tails.getLostList()).containsExactly(0L, 3L);
    assertThat(tails.getLostTotal()).isEqualTo(2);
    assertThat(tails.getTail()).as("the log's tail counts them").isEqualTo(3);
    assertThat(tails.getStreamsList()).hasSize(1);
    assertThat(tails.getStreams(0).getTail()).isEqualTo(1);
    assertThat(tails.getStreams(0).getLastGlobal()).isEqualTo(2);

    // Marked after the index exists: reported too.
    get(store.markLost(List.of(7L)));
    tails = get(store.logReplica().tail(LogTailRequest.newBuilder().setStreams(true).build()));
    assertThat(tails.getLostList()).containsExactly(0L, 3L, 7L);
  }
}
