package io.vcorfu.logunit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.google.protobuf.ByteString;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.StreamSlot;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** Shared helpers for logunit tests. */
final class Fixtures {
  private Fixtures() {}

  /**
   * Where the records of a segment file's bytes end: each record is "VCRG", its length and its
   * checksum, then its body (the writer keeps zeroed bytes after them while the segment is open).
   */
  static long recordsEnd(byte[] file) {
    ByteBuffer b = ByteBuffer.wrap(file);
    int at = 0;
    while (at + 12 <= b.limit() && b.getInt(at) == 0x56435247) {
      at += 12 + b.getInt(at + 4);
    }
    return at;
  }

  static StorageOptions options(StorageMode mode, Path dir) {
    return StorageOptions.builder()
        .mode(mode)
        .directory(mode == StorageMode.DURABLE ? dir : null)
        .build();
  }

  /**
   * Durable storage in {@code dir} with 64 KiB segments, compacted only when a test asks ({@code
   * ReplicaStore.compact}).
   */
  static StorageOptions compactedOnDemand(Path dir) {
    return StorageOptions.builder()
        .mode(StorageMode.DURABLE)
        .directory(dir)
        .segmentSize(64 << 10)
        .compactBelow(0)
        .compactionBytesPerSecond(0)
        .build();
  }

  static LogEntryMsg data(long global, String payload, StreamSlot... slots) {
    return LogEntryMsg.newBuilder()
        .setGlobalAddress(global)
        .setKind(EntryKind.DATA)
        .setPayload(ByteString.copyFrom(payload, StandardCharsets.UTF_8))
        .setEpoch(1)
        .addAllSlots(java.util.List.of(slots))
        .build();
  }

  static StreamSlot slot(StreamId stream, long address) {
    return StreamSlot.newBuilder().setStream(stream.toMsg()).setStreamAddress(address).build();
  }

  static <T> T get(CompletableFuture<T> f) {
    try {
      return f.get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("call failed", e);
    }
  }

  /** The typed error a future failed with. */
  static Throwable failure(CompletableFuture<?> f) {
    try {
      f.get(30, TimeUnit.SECONDS);
    } catch (ExecutionException | CompletionException e) {
      return e.getCause();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    return fail("expected the call to fail, but it succeeded");
  }

  static <T extends Throwable> T failure(CompletableFuture<?> f, Class<T> type) {
    Throwable t = failure(f);
    assertThat(t).isInstanceOf(type);
    return type.cast(t);
  }
}
