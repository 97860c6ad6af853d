package io.vcorfu.microbench;

import com.google.protobuf.ByteString;
import io.vcorfu.logunit.ReplicaStore;
import io.vcorfu.logunit.StorageMode;
import io.vcorfu.logunit.StorageOptions;
import io.vcorfu.logunit.StreamReplica;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.StreamSlot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The storage engine's append, as a single node stores a write: one chain write of a 1 KiB entry
 * with its log step and its stream step in one record (the one-copy path). In memory; and durable
 * in a fresh directory, {@code inFlight} writes at a time, each acknowledged only once forced, so
 * that the group commit shares one fsync among the writes that arrive together (time per write).
 * Every {@link #TRIM_EVERY} writes the log and the stream are trimmed below the last thousand
 * entries, as a node's trims keep it, so the store (memory, index, files) stays the same size
 * however long the benchmark runs; the trims' cost is part of the figure.
 */
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
public class StorageBench extends Microbenchmark {
  static final int IN_FLIGHT = 32;
  static final int TRIM_EVERY = 16_384;
  private static final StreamId STREAM = StreamId.of("bench");

  @Param({"MEMORY", "DURABLE"})
  StorageMode mode;

  private Path directory;
  private ReplicaStore store;
  private ByteString payload;
  private long next;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    directory = Files.createTempDirectory("vcorfu-jmh-storage");
    store =
        ReplicaStore.open(
            StorageOptions.builder().mode(mode).directory(directory).compactBelow(0).build());
    byte[] bytes = new byte[1024];
    new Random(1).nextBytes(bytes);
    payload = ByteString.copyFrom(bytes);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    store.close();
    try (Stream<Path> files = Files.walk(directory)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  private CompletableFuture<ReplicaStore.ChainWriteResult> write() {
    long a = next++;
    if (a > 0 && a % TRIM_EVERY == 0) {
      store.logReplica().trim(a - 1024).join();
      store.streamReplica().trim(STREAM, a - 1024).join();
    }
    StreamSlot slot =
        StreamSlot.newBuilder()
            .setStream(STREAM.toMsg())
            .setStreamAddress(a)
            .setBackpointer(a - 1)
            .build();
    LogEntryMsg e =
        LogEntryMsg.newBuilder()
            .setGlobalAddress(a)
            .setKind(EntryKind.DATA)
            .setPayload(payload)
            .setEpoch(1)
            .setNonce(a * 31 + 7)
            .addSlots(slot)
            .build();
    return store.chainWrite(
        e,
        List.of(
            new ReplicaStore.Step(true, List.of(), false),
            new ReplicaStore.Step(false, List.of(StreamReplica.Slot.of(slot)), true)),
        true);
  }

  /** One write at a time, waited for (durable: one fsync each). */
  @Benchmark
  public ReplicaStore.ChainWriteResult oneAtATime() {
    return write().join();
  }

  /** {@link #IN_FLIGHT} writes issued together, then all waited for; time per write. */
  @Benchmark
  @OperationsPerInvocation(IN_FLIGHT)
  public ReplicaStore.ChainWriteResult grouped() {
    List<CompletableFuture<ReplicaStore.ChainWriteResult>> all = new ArrayList<>(IN_FLIGHT);
    for (int i = 0; i < IN_FLIGHT; i++) {
      all.add(write());
    }
    ReplicaStore.ChainWriteResult last = null;
    for (CompletableFuture<ReplicaStore.ChainWriteResult> f : all) {
      last = f.join();
    }
    return last;
  }
}
