package io.vcorfu.logunit;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.LogFillRequest;
import io.vcorfu.protocol.proto.LogWriteRequest;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.StreamFillRequest;
import io.vcorfu.protocol.proto.StreamSlot;
import io.vcorfu.protocol.proto.StreamWriteRequest;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An abort-fill names the write attempt it aborts by its nonce: it never destroys another entry
 * that holds the same address (after a sequencer restart reissued it), and a re-drive of the same
 * attempt stays idempotent.
 */
class AbortNonceTest {
  @TempDir Path dir;

  private static LogEntryMsg entry(long global, long nonce, StreamId stream) {
    return LogEntryMsg.newBuilder()
        .setGlobalAddress(global)
        .setKind(EntryKind.DATA)
        .addSlots(StreamSlot.newBuilder().setStream(stream.toMsg()).setStreamAddress(0))
        .setPayload(ByteString.copyFromUtf8("v" + nonce))
        .setNonce(nonce)
        .build();
  }

  @ParameterizedTest
  @EnumSource(StorageMode.class)
  void logAbortFillOnlyAbortsTheNamedAttempt(StorageMode mode) throws Exception {
    try (LogReplica replica = LogReplica.open(Fixtures.options(mode, dir))) {
      StreamId s = StreamId.of("s");
      replica.write(LogWriteRequest.newBuilder().setEntry(entry(7, 111, s)).build()).join();
      // Re-drive of the same attempt: idempotent.
      replica.write(LogWriteRequest.newBuilder().setEntry(entry(7, 111, s)).build()).join();

      ReadResult other =
          replica
              .fill(
                  LogFillRequest.newBuilder()
                      .setAddress(7)
                      .setAbort(true)
                      .setAbortNonce(222)
                      .setCommit(true)
                      .build())
              .join()
              .getResult();
      assertThat(other.getStatus()).isEqualTo(ReadResult.Status.UNCOMMITTED);
      assertThat(other.getEntry().getNonce()).isEqualTo(111);

      ReadResult own =
          replica
              .fill(
                  LogFillRequest.newBuilder()
                      .setAddress(7)
                      .setAbort(true)
                      .setAbortNonce(111)
                      .setCommit(true)
                      .build())
              .join()
              .getResult();
      assertThat(own.getStatus()).isEqualTo(ReadResult.Status.COMMITTED);
      assertThat(own.getEntry().getKind()).isEqualTo(EntryKind.HOLE);
    }
  }

  @ParameterizedTest
  @EnumSource(StorageMode.class)
  void streamAbortFillOnlyAbortsTheNamedAttempt(StorageMode mode) throws Exception {
    try (StreamReplica replica = StreamReplica.open(Fixtures.options(mode, dir))) {
      StreamId s = StreamId.of("s");
      LogEntryMsg e = entry(7, 111, s);
      replica
          .write(StreamWriteRequest.newBuilder().setEntry(e).addAllSlots(e.getSlotsList()).build())
          .join();

      StreamFillRequest.Builder fill =
          StreamFillRequest.newBuilder()
              .setStream(s.toMsg())
              .setStreamAddress(0)
              .setAbort(true)
              .setCommit(true);
      ReadResult other = replica.fill(fill.setAbortNonce(222).build()).join().getResult();
      assertThat(other.getStatus()).isEqualTo(ReadResult.Status.UNCOMMITTED);
      assertThat(other.getEntry().getNonce()).isEqualTo(111);

      ReadResult own = replica.fill(fill.setAbortNonce(111).build()).join().getResult();
      assertThat(own.getStatus()).isEqualTo(ReadResult.Status.COMMITTED);
      assertThat(own.getEntry().getKind()).isEqualTo(EntryKind.HOLE);
    }
  }
}
