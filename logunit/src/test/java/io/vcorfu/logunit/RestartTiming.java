package io.vcorfu.logunit;

import com.google.protobuf.ByteString;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.ChainStep;
import io.vcorfu.protocol.proto.ChainWriteRequest;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.LogReadRequest;
import io.vcorfu.protocol.proto.StreamSlot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

/**
 * Measures how long the storage of a durable node (a {@link ReplicaStore}: its log replica and
 * stream replica on one engine) holding N (default 1,000,000) 1 KB entries takes to reopen. Each
 * entry is written as a node writes it: the log copy and the copy in one of 100 streams, by one
 * chain write. Usage: {@code RestartTiming [directory] [entries]}. When the directory already holds
 * segments only the reopen is timed; otherwise it is filled first (without fsync: this measures
 * restart, not writing). The directory is left in place.
 */
public final class RestartTiming {
  private RestartTiming() {}

  public static void main(String[] args) throws Exception {
    Path dir = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("vcorfu-restart");
    int entries = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
    StorageOptions options =
        StorageOptions.builder()
            .mode(StorageMode.DURABLE)
            .directory(dir)
            .fsyncPolicy(FsyncPolicy.NONE)
            .build();
    boolean hasData;
    try (Stream<Path> files = Files.isDirectory(dir) ? Files.list(dir) : Stream.empty()) {
      hasData = files.findAny().isPresent();
    }
    if (!hasData) {
      fill(options, entries);
    }
    System.gc();
    long usedBefore = usedHeap();
    long t1 = System.nanoTime();
    try (ReplicaStore store = ReplicaStore.open(options)) {
      long opened = System.nanoTime();
      System.gc();
      long usedAfter = usedHeap();
      LogReplica r = store.logReplica();
      var last =
          r.read(LogReadRequest.newBuilder().setFrom(entries - 1).setTo(entries - 1).build())
              .join()
              .getResults(0);
      System.out.printf(
          "reopen took %d ms (%s); heap retained after reopen about %d MB; " + "entry %d is %s%n",
          (opened - t1) / 1_000_000,
          store.recoveryStats(),
          (usedAfter - usedBefore) >> 20,
          entries - 1,
          last.getStatus());
    }
  }

  private static void fill(StorageOptions options, int entries) throws Exception {
    ByteString payload = ByteString.copyFrom(new byte[1024]);
    long t0 = System.nanoTime();
    try (ReplicaStore store = ReplicaStore.open(options)) {
      List<CompletableFuture<?>> window = new ArrayList<>();
      for (int i = 0; i < entries; i++) {
        StreamSlot slot =
            StreamSlot.newBuilder()
                .setStream(StreamId.of("s" + (i % 100)).toMsg())
                .setStreamAddress(i / 100)
                .setBackpointer(i < 100 ? -1 : i - 100)
                .build();
        LogEntryMsg e =
            LogEntryMsg.newBuilder()
                .setGlobalAddress(i)
                .setKind(EntryKind.DATA)
                .addSlots(slot)
                .setPayload(payload)
                .build();
        window.add(
            store.chainWrite(
                ChainWriteRequest.newBuilder()
                    .setEntry(e)
                    .addSteps(ChainStep.newBuilder().setLog(true))
                    .addSteps(ChainStep.newBuilder().addSlots(slot).setCommit(true))
                    .setCommitEarlier(true)
                    .build()));
        if (window.size() == 10_000) {
          CompletableFuture.allOf(window.toArray(CompletableFuture[]::new)).join();
          window.clear();
        }
      }
      CompletableFuture.allOf(window.toArray(CompletableFuture[]::new)).join();
    }
    System.out.printf(
        "wrote %,d entries of 1 KB in %.1f s to %s%n",
        entries, (System.nanoTime() - t0) / 1e9, options.directory());
  }

  private static long usedHeap() {
    Runtime rt = Runtime.getRuntime();
    return rt.totalMemory() - rt.freeMemory();
  }
}
