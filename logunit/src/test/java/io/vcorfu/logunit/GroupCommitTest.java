package io.vcorfu.logunit;

import static io.vcorfu.logunit.Fixtures.data;
import static io.vcorfu.logunit.Fixtures.get;
import static io.vcorfu.logunit.Fixtures.slot;
import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.LogReadRequest;
import io.vcorfu.protocol.proto.LogWriteRequest;
import io.vcorfu.protocol.proto.LogWriteResponse;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.ReadResult.Status;
import io.vcorfu.protocol.proto.StreamReadRequest;
import io.vcorfu.protocol.proto.StreamWriteRequest;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Group commit: many concurrent writers, one forcing writer thread, nothing lost. */
class GroupCommitTest {
  private static final int THREADS = 8;
  private static final int PER_THREAD = 250;

  @TempDir Path dir;

  /** A committed write of {@code value} at {@code address}. */
  private static CompletableFuture<LogWriteResponse> committed(
      LogReplica r, long address, String value) {
    return r.write(
        LogWriteRequest.newBuilder().setEntry(data(address, value)).setCommit(true).build());
  }

  /** Durable storage in the test's directory, the rest as each test sets it. */
  private StorageOptions.Builder durable() {
    return StorageOptions.builder().mode(StorageMode.DURABLE).directory(dir);
  }

  @ParameterizedTest
  @EnumSource(FsyncPolicy.class)
  void concurrentWritersAllCompleteAndSurviveReopen(FsyncPolicy policy) throws Exception {
    StorageOptions o =
        durable()
            .fsyncPolicy(policy)
            .fsyncInterval(Duration.ofMillis(5))
            .segmentSize(64 << 10)
            .build();
    try (LogReplica r = LogReplica.open(o)) {
      ExecutorService pool = Executors.newFixedThreadPool(THREADS);
      try {
        List<Future<List<CompletableFuture<LogWriteResponse>>>> submitted = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
          int thread = t;
          submitted.add(
              pool.submit(
                  () -> {
                    List<CompletableFuture<LogWriteResponse>> mine = new ArrayList<>();
                    for (int i = 0; i < PER_THREAD; i++) {
                      long address = (long) i * THREADS + thread;
                      mine.add(committed(r, address, "w" + address));
                    }
                    return mine;
                  }));
        }
        for (Future<List<CompletableFuture<LogWriteResponse>>> f : submitted) {
          CompletableFuture.allOf(f.get(60, TimeUnit.SECONDS).toArray(CompletableFuture[]::new))
              .get(60, TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
      }
    }
    try (LogReplica r = LogReplica.open(o)) {
      int total = THREADS * PER_THREAD;
      List<ReadResult> all =
          get(r.read(LogReadRequest.newBuilder().setFrom(0).setTo(total - 1).build()))
              .getResultsList();
      assertThat(all).hasSize(total).allMatch(x -> x.getStatus() == Status.COMMITTED);
      assertThat(all.get(1234).getEntry().getPayload().toStringUtf8()).isEqualTo("w1234");
    }
  }

  @Test
  void concurrentStreamWritersToManyStreamsSurviveReopen() throws Exception {
    StorageOptions o = durable().segmentSize(32 << 10).build();
    List<StreamId> streams = new ArrayList<>();
    for (int s = 0; s < THREADS; s++) {
      streams.add(StreamId.of("s" + s));
    }
    try (StreamReplica r = StreamReplica.open(o)) {
      ExecutorService pool = Executors.newFixedThreadPool(THREADS);
      try {
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
          StreamId mine = streams.get(t);
          int thread = t;
          done.add(
              pool.submit(
                  () -> {
                    List<CompletableFuture<?>> writes = new ArrayList<>();
                    for (int i = 0; i < 100; i++) {
                      LogEntryMsg e = data((long) i * THREADS + thread, "v" + i, slot(mine, i));
                      writes.add(
                          r.write(
                              StreamWriteRequest.newBuilder()
                                  .setEntry(e)
                                  .addAllSlots(e.getSlotsList())
                                  .setCommit(true)
                                  .build()));
                    }
                    CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).join();
                    return null;
                  }));
        }
        for (Future<?> f : done) {
          f.get(60, TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
      }
    }
    try (StreamReplica r = StreamReplica.open(o)) {
      for (StreamId s : streams) {
        List<ReadResult> res =
            get(r.read(
                    StreamReadRequest.newBuilder()
                        .setStream(s.toMsg())
                        .setFrom(0)
                        .setTo(99)
                        .build()))
                .getResultsList();
        assertThat(res).allMatch(x -> x.getStatus() == Status.COMMITTED);
      }
    }
  }

  /**
   * Under a policy that acknowledges before a force, the writing thread writes its own record into
   * the file and its write is answered before the call returns: no hand-off to the writer's thread
   * and back. The records are in the file at once, and all of them after a reopen.
   */
  @ParameterizedTest
  @EnumSource(
      value = FsyncPolicy.class,
      names = {"INTERVAL", "NONE"})
  void withoutAForcePerWriteTheCallerWritesItsRecordAndIsAnsweredAtOnce(FsyncPolicy policy)
      throws Exception {
    AtomicLong forced = new AtomicLong();
    StorageOptions o =
        durable()
            .fsyncPolicy(policy)
            .fsyncInterval(Duration.ofSeconds(60))
            .forceObserver((nanos, records) -> forced.incrementAndGet())
            .build();
    Path segment = dir.resolve("segment-000001.log");
    try (LogReplica r = LogReplica.open(o)) {
      int first = 0;
      if (policy == FsyncPolicy.INTERVAL) {
        // The first write has the writer's thread lay 1 MiB of zeroes ahead of the records,
        // holding the writing lock meanwhile (a write then finds it busy and hands over). From
        // the first write answered on return after the zeroes are laid, nothing wakes that
        // thread: no zeroes are due for 512 KiB, no force for 60 s.
        // Until then a write may be answered on return too (the caller writes while the writer's
        // thread waits for a processor on a busy machine), so the writes wait for the zeroes.
        boolean atOnce = false;
        for (; first < 200 && !atOnce; first++) {
          boolean zeroesLaid = java.nio.file.Files.size(segment) >= 1 << 20;
          CompletableFuture<LogWriteResponse> f = committed(r, first, "caller-" + first);
          atOnce = zeroesLaid && f.isDone();
          f.get(30, TimeUnit.SECONDS);
          if (!zeroesLaid) {
            Awaitility.await("the zeroes ahead of the records")
                .atMost(Duration.ofSeconds(30))
                .until(() -> java.nio.file.Files.size(segment) >= 1 << 20);
          }
        }
        assertThat(atOnce).as("a write answered on return after the zeroes").isTrue();
      }
      for (int i = first; i < first + 50; i++) {
        long sizeBefore = java.nio.file.Files.size(segment);
        CompletableFuture<LogWriteResponse> f = committed(r, i, "caller-" + i);
        assertThat(f).as("write %d answered on return", i).isCompleted();
        if (policy == FsyncPolicy.NONE) {
          // No zeroes ahead under NONE: the file grows by each record as it is written.
          assertThat(java.nio.file.Files.size(segment)).isGreaterThan(sizeBefore);
        }
      }
      assertThat(forced).as("forces of the active segment while writing").hasValue(0);
    }
    try (LogReplica r = LogReplica.open(o)) {
      List<ReadResult> all =
          get(r.read(LogReadRequest.newBuilder().setFrom(0).setTo(49).build())).getResultsList();
      assertThat(all).hasSize(50).allMatch(x -> x.getStatus() == Status.COMMITTED);
      assertThat(all.get(49).getEntry().getPayload().toStringUtf8()).isEqualTo("caller-49");
    }
  }

  /** Under group commit a write is answered only after a force that covers it. */
  @Test
  void withAForcePerWriteTheAnswerWaitsForAForce() throws Exception {
    AtomicLong forced = new AtomicLong();
    StorageOptions o =
        durable().forceObserver((nanos, records) -> forced.addAndGet(records)).build();
    try (LogReplica r = LogReplica.open(o)) {
      for (int i = 0; i < 20; i++) {
        CompletableFuture<Long> forcedWhenAnswered =
            committed(r, i, "forced-" + i).thenApply(w -> forced.get());
        assertThat(forcedWhenAnswered.get(30, TimeUnit.SECONDS)).isGreaterThan(i);
      }
    }
  }

  /**
   * Under group commit a write asked for on a thread whose completion home is an executor is
   * answered by a task on that executor (a node's network thread's own event loop), after the
   * force; a write from a thread without one, by the storage's completion thread.
   */
  @Test
  void underGroupCommitAWriteIsAnsweredOnItsThreadsCompletionHome() throws Exception {
    ExecutorService home = Executors.newSingleThreadExecutor();
    AtomicLong homeTasks = new AtomicLong();
    Executor countingHome =
        task -> {
          homeTasks.incrementAndGet();
          home.execute(task);
        };
    ExecutorService writers =
        Executors.newSingleThreadExecutor(r -> new Thread(r, "test-network-thread"));
    AtomicLong forced = new AtomicLong();
    StorageOptions o =
        durable()
            .forceObserver((nanos, records) -> forced.addAndGet(records))
            .completionHome(
                () ->
                    Thread.currentThread().getName().equals("test-network-thread")
                        ? countingHome
                        : null)
            .build();
    try (LogReplica r = LogReplica.open(o)) {
      for (int i = 0; i < 10; i++) {
        long address = i;
        CompletableFuture<Long> forcedWhenAnswered =
            writers
                .submit(() -> committed(r, address, "home-" + address).thenApply(w -> forced.get()))
                .get(30, TimeUnit.SECONDS);
        assertThat(forcedWhenAnswered.get(30, TimeUnit.SECONDS)).isGreaterThan(i);
        assertThat(homeTasks).as("answers completed on the home executor").hasValue(i + 1);
      }
      committed(r, 10, "other").get(30, TimeUnit.SECONDS);
      assertThat(homeTasks).as("a write from a thread without a home").hasValue(10);
    } finally {
      home.shutdownNow();
      writers.shutdownNow();
    }
  }

  /**
   * Once the storage fails (here the directory's force when a segment rolls), every write still
   * waiting and every later one is answered with the failure; none waits for ever, whichever thread
   * was writing when it failed.
   */
  @ParameterizedTest
  @EnumSource(
      value = FsyncPolicy.class,
      names = {"ALWAYS", "INTERVAL"}) // NONE forces no directory while it writes
  void aStorageFailureAnswersEveryWaitingAndLaterWrite(FsyncPolicy policy) throws Exception {
    java.util.concurrent.atomic.AtomicBoolean broken =
        new java.util.concurrent.atomic.AtomicBoolean();
    StorageOptions o =
        durable()
            .fsyncPolicy(policy)
            .fsyncInterval(Duration.ofMillis(5))
            .segmentSize(64 << 10)
            .directorySync(
                d -> {
                  if (broken.get()) {
                    throw new IOException("injected: the directory cannot be forced");
                  }
                  DirectorySync.FSYNC.force(d);
                })
            .build();
    try (LogReplica r = LogReplica.open(o)) {
      broken.set(true);
      ExecutorService pool = Executors.newFixedThreadPool(4);
      try {
        List<Future<List<CompletableFuture<LogWriteResponse>>>> submitted = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
          int thread = t;
          submitted.add(
              pool.submit(
                  () -> {
                    List<CompletableFuture<LogWriteResponse>> mine = new ArrayList<>();
                    for (int i = 0; i < 100; i++) {
                      long address = (long) i * 4 + thread;
                      mine.add(committed(r, address, "x".repeat(1000)));
                    }
                    return mine;
                  }));
        }
        int failed = 0;
        for (Future<List<CompletableFuture<LogWriteResponse>>> f : submitted) {
          for (CompletableFuture<LogWriteResponse> w : f.get(60, TimeUnit.SECONDS)) {
            try {
              w.get(30, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
              failed++;
            }
          }
        }
        assertThat(failed).as("writes answered with the failure").isPositive();
        CompletableFuture<LogWriteResponse> later = committed(r, 10_000, "late");
        assertThat(later).failsWithin(Duration.ofSeconds(30));
      } finally {
        pool.shutdownNow();
      }
    }
  }

  @Test
  void writeFutureCompletesOnlyAfterItIsOnDisk() throws IOException {
    StorageOptions o = StorageOptions.durable(dir);
    try (LogReplica r = LogReplica.open(o)) {
      get(committed(r, 0, "durable"));
      // A completed write is already in the segment file, before any close.
      assertThat(java.nio.file.Files.size(dir.resolve("segment-000001.log"))).isPositive();
    }
  }
}
