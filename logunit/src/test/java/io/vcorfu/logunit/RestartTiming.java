package io.vcorfu.logunit;

import com.google.protobuf.ByteString;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.LogReadRequest;
import io.vcorfu.protocol.proto.LogWriteRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Measures how long a durable log replica holding N (default 1,000,000) 1 KB entries takes to
 * reopen. Usage: {@code RestartTiming [directory] [entries]}; the directory must not exist or be
 * empty, and is left in place.
 */
public final class RestartTiming {
  private RestartTiming() {}

  public static void main(String[] args) throws Exception {
    Path dir = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("vcorfu-restart");
    int entries = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
    StorageOptions fill = StorageOptions.builder().mode(StorageMode.DURABLE).directory(dir)
        .fsyncPolicy(FsyncPolicy.NONE).build();
    ByteString payload = ByteString.copyFrom(new byte[1024]);
    long t0 = System.nanoTime();
    try (LogReplica r = LogReplica.open(fill)) {
      List<CompletableFuture<?>> window = new ArrayList<>();
      for (int i = 0; i < entries; i++) {
        LogEntryMsg e = LogEntryMsg.newBuilder().setGlobalAddress(i).setKind(EntryKind.DATA)
            .setPayload(payload).build();
        window.add(r.write(LogWriteRequest.newBuilder().setEntry(e).setCommit(true).build()));
        if (window.size() == 10_000) {
          CompletableFuture.allOf(window.toArray(CompletableFuture[]::new)).join();
          window.clear();
        }
      }
      CompletableFuture.allOf(window.toArray(CompletableFuture[]::new)).join();
    }
    long filled = System.nanoTime();
    System.out.printf("wrote %,d entries of 1 KB in %.1f s to %s%n", entries,
        (filled - t0) / 1e9, dir);
    System.gc();
    long usedBefore = usedHeap();
    long t1 = System.nanoTime();
    try (LogReplica r = LogReplica.open(fill)) {
      long opened = System.nanoTime();
      long usedAfter = usedHeap();
      var last = r.read(LogReadRequest.newBuilder().setFrom(entries - 1).setTo(entries - 1)
          .build()).join().getResults(0);
      System.out.printf("reopen took %d ms (%s); heap grew by about %d MB; last entry %s%n",
          (opened - t1) / 1_000_000, r.recoveryStats(), (usedAfter - usedBefore) >> 20,
          last.getStatus());
    }
  }

  private static long usedHeap() {
    Runtime rt = Runtime.getRuntime();
    return rt.totalMemory() - rt.freeMemory();
  }
}
