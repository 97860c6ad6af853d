package io.vcorfu.logunit;

import static io.vcorfu.logunit.Fixtures.data;
import static io.vcorfu.logunit.Fixtures.get;
import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.protocol.proto.LogTrimRequest;
import io.vcorfu.protocol.proto.LogWriteRequest;
import io.vcorfu.protocol.proto.LogWriteResponse;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Directory entries on the durability path: a segment's creation is forced before any write in it
 * is acknowledged, index-file renames and segment deletions are followed by a directory force, and
 * a segment is deleted only once the trim that covers it is forced, whatever the fsync policy.
 */
class DirectorySyncTest {
  @TempDir Path dir;

  /** One directory force: the directory, its file names then, and the store's forces so far. */
  record Force(Path directory, Set<String> files, long forcedWrites) {}

  /** Records every directory force; a closed gate holds forces back until it opens. */
  static final class Recorder implements DirectorySync {
    final List<Force> forces = new CopyOnWriteArrayList<>();
    final AtomicInteger waiting = new AtomicInteger();
    final AtomicReference<ReplicaStore> store = new AtomicReference<>();
    volatile CountDownLatch gate = new CountDownLatch(0);

    @Override
    public void force(Path directory) throws IOException {
      waiting.incrementAndGet();
      try {
        gate.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while held");
      } finally {
        waiting.decrementAndGet();
      }
      ReplicaStore s = store.get();
      forces.add(new Force(directory, list(directory), s == null ? -1 : s.forcedWrites()));
      DirectorySync.FSYNC.force(directory);
    }

    private static Set<String> list(Path directory) throws IOException {
      try (Stream<Path> files = Files.list(directory)) {
        return files.map(p -> p.getFileName().toString()).collect(Collectors.toSet());
      }
    }
  }

  private StorageOptions options(Recorder sync, FsyncPolicy policy) {
    return StorageOptions.builder()
        .mode(StorageMode.DURABLE)
        .directory(dir)
        .segmentSize(4096)
        .fsyncPolicy(policy)
        .fsyncInterval(Duration.ofHours(1))
        .directorySync(sync)
        .build();
  }

  private static LogWriteRequest write(long address) {
    return LogWriteRequest.newBuilder()
        .setEntry(data(address, "entry-" + address + "-" + "p".repeat(100)))
        .setCommit(true)
        .build();
  }

  @Test
  void writeInAFreshSegmentIsAcknowledgedOnlyAfterTheDirectoryHoldingItWasForced()
      throws IOException {
    Recorder sync = new Recorder();
    try (ReplicaStore store = ReplicaStore.open(options(sync, FsyncPolicy.ALWAYS))) {
      assertThat(sync.forces)
          .as("the first segment's creation is forced on open")
          .anyMatch(f -> f.files().contains("segment-000001.log"));
      Path second = dir.resolve("segment-000002.log");
      boolean held = false;
      sync.gate = new CountDownLatch(1);
      try {
        for (long a = 0; a < 100 && !held; a++) {
          CompletableFuture<LogWriteResponse> f = store.logReplica().write(write(a));
          Awaitility.await()
              .atMost(Duration.ofSeconds(30))
              .until(() -> f.isDone() || sync.waiting.get() > 0);
          if (sync.waiting.get() == 0) {
            assertThat(second)
                .as(
                    "write %d was acknowledged in a new segment whose directory entry "
                        + "was never forced",
                    a)
                .doesNotExist();
            continue;
          }
          held = true;
          assertThat(second).exists();
          assertThat(f)
              .as("a write in the new segment while its directory entry is not forced")
              .isNotDone();
          sync.gate.countDown();
          get(f);
          assertThat(sync.forces.get(sync.forces.size() - 1).files())
              .as("the force after sealing covers the new segment and the renamed index file")
              .contains("segment-000002.log", "segment-000001.idx");
        }
      } finally {
        sync.gate.countDown(); // never leave the writer held, whatever failed
      }
      assertThat(held).as("some write rolled to a second segment").isTrue();
    }
  }

  @Test
  // The try block holds the resource open for its duration; the body does not name it.
  @SuppressWarnings("try")
  void openingANewDataDirectoryForcesEveryDirectoryEntryItCreated() throws IOException {
    Recorder sync = new Recorder();
    Path data = dir.resolve("a").resolve("b");
    StorageOptions o =
        StorageOptions.builder()
            .mode(StorageMode.DURABLE)
            .directory(data)
            .directorySync(sync)
            .build();
    try (ReplicaStore store = ReplicaStore.open(o)) {
      assertThat(sync.forces)
          .anySatisfy(
              f -> {
                assertThat(f.directory()).isEqualTo(dir);
                assertThat(f.files()).contains("a");
              });
      assertThat(sync.forces)
          .anySatisfy(
              f -> {
                assertThat(f.directory()).isEqualTo(dir.resolve("a"));
                assertThat(f.files()).contains("b");
              });
      assertThat(sync.forces)
          .anySatisfy(
              f -> {
                assertThat(f.directory()).isEqualTo(data);
                assertThat(f.files()).contains("segment-000001.log");
              });
    }
  }

  @Test
  void indexRenamesAndSegmentDeletionsAreFollowedByADirectoryForce() throws IOException {
    Recorder sync = new Recorder();
    try (ReplicaStore store = ReplicaStore.open(options(sync, FsyncPolicy.ALWAYS))) {
      for (long a = 0; a < 300; a++) {
        get(store.logReplica().write(write(a)));
      }
      List<String> indexes;
      try (Stream<Path> files = Files.list(dir)) {
        indexes =
            files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".idx")).toList();
      }
      assertThat(indexes).hasSizeGreaterThan(3);
      for (String idx : indexes) {
        assertThat(sync.forces)
            .as("a directory force after %s was renamed into place", idx)
            .anyMatch(f -> f.files().contains(idx));
      }
      get(store.logReplica().trim(LogTrimRequest.newBuilder().setBefore(250).build()));
      assertThat(dir.resolve("segment-000001.log")).doesNotExist();
      assertThat(sync.forces.get(sync.forces.size() - 1).files())
          .as("the last directory force came after the deletions")
          .doesNotContain("segment-000001.log", "segment-000001.idx");
    }
  }

  @Test
  void intervalPolicyDeletesASegmentOnlyAfterTheTrimThatCoversItIsForced() throws IOException {
    Recorder sync = new Recorder();
    try (ReplicaStore store = ReplicaStore.open(options(sync, FsyncPolicy.INTERVAL))) {
      sync.store.set(store);
      for (long a = 0; a < 100; a++) {
        get(store.logReplica().write(write(a)));
      }
      // With a one-hour interval nothing forces the records written since the last seal.
      long forcedBefore = store.forcedWrites();
      get(store.logReplica().trim(LogTrimRequest.newBuilder().setBefore(90).build()));
      assertThat(dir.resolve("segment-000001.log")).doesNotExist();
      Force first =
          sync.forces.stream()
              .filter(f -> !f.files().contains("segment-000001.log"))
              .findFirst()
              .orElseThrow(
                  () -> new AssertionError("segment 1 was deleted without a directory force"));
      assertThat(first.forcedWrites())
          .as("forces of the active segment before segment 1 was deleted (the trim record's)")
          .isGreaterThan(forcedBefore);
    }
  }
}
