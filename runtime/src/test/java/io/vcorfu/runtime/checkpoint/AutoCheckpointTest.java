package io.vcorfu.runtime.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.vcorfu.client.ClusterRetention;
import io.vcorfu.client.SnapshotFloor;
import io.vcorfu.client.StreamLog;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.runtime.Retention;
import io.vcorfu.runtime.RuntimeOptions;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.example.Counter;
import io.vcorfu.runtime.testing.ForwardingStreamLog;
import io.vcorfu.runtime.testing.TestRuntimes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Automatic checkpoints: a live view that played enough updates is checkpointed, its stream and
 * checkpoint stream are trimmed below a checkpoint that keeps the retained versions readable;
 * versions older than that fail with a typed error, never a wrong answer; a view left behind the
 * trim starts again from the checkpoint.
 *
 * <p>The cases run concurrently: each has a log and runtimes of its own, and each spends most of
 * its time waiting for the automatic checkpoints' one-second passes and two-second safe window.
 */
@Execution(ExecutionMode.CONCURRENT)
class AutoCheckpointTest {
  private static final StreamId COUNTER = StreamId.of("auto-cp");

  @RegisterExtension final TestRuntimes runtimes = new TestRuntimes();

  private static RuntimeOptions retaining(long versions) {
    return RuntimeOptions.defaults()
        .withRetention(
            Retention.DEFAULT
                .withCheckpointMinBytes(1024)
                .withHistoryBudgetBytes(0)
                .withRetainVersions(versions));
  }

  /** The stream's trim mark, as a read below it reports it; 0 when not trimmed. */
  private static long trimMark(StreamLog log, StreamId s) {
    Throwable t = catchThrowable(() -> log.readStream(s, 0, 0).join());
    if (t instanceof CompletionException && t.getCause() instanceof TrimmedException e) {
      return e.trimMark();
    }
    return 0;
  }

  /** Waits until the counter's checkpoint stream holds at least {@code n} checkpoints. */
  private void awaitCheckpoints(int n) {
    StreamLog log = runtimes.newLog();
    StreamId cp = Checkpoints.streamOf(COUNTER);
    Awaitility.await(n + " checkpoints")
        .atMost(Duration.ofSeconds(20))
        .until(() -> log.tails(List.of(cp)).join().streamTails().getOrDefault(cp, -1L) + 1 >= n);
  }

  /** Adds 1 {@code n} times, reading after each; returns each update's global address. */
  private List<Long> addOneAtATime(Counter c, int n) {
    StreamLog log = runtimes.newLog();
    List<Long> versions = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      c.add(1);
      c.get();
      versions.add(log.tails(List.of()).join().globalTail());
    }
    return versions;
  }

  @Test
  void aLiveViewIsCheckpointedAndTrimmedKeepingTheRetainedVersionsReadable() {
    VCorfuRuntime writer = runtimes.runtime(retaining(50));
    Counter c = writer.objects().open("auto-cp", Counter.class);
    List<Long> versions = addOneAtATime(c, 200);
    awaitCheckpoints(1);
    versions.addAll(addOneAtATime(c, 100)); // a checkpoint with more than 50 updates after it
    awaitCheckpoints(2);
    versions.addAll(addOneAtATime(c, 100));
    StreamLog log = runtimes.newLog();

    Awaitility.await("the second checkpoint chosen: the stream and the first checkpoint trimmed")
        .atMost(Duration.ofSeconds(20))
        .until(() -> trimMark(log, Checkpoints.streamOf(COUNTER)), m -> m > 0);
    long mark = trimMark(log, COUNTER);

    long tail = log.tails(List.of(COUNTER)).join().streamTails().get(COUNTER);
    assertThat(tail + 1 - mark).as("the last 50 updates stay").isGreaterThanOrEqualTo(50);
    assertThat(mark).as("below the second checkpoint").isGreaterThanOrEqualTo(300);

    VCorfuRuntime reader = runtimes.runtime(retaining(50));
    assertThat(reader.objects().open("auto-cp", Counter.class).get()).isEqualTo(400);
    long recent = versions.get(380);
    assertThat(reader.objects().builder("auto-cp", Counter.class).asOf(recent).open().get())
        .as("a retained version")
        .isEqualTo(381);
    Counter tooOld =
        reader.objects().builder("auto-cp", Counter.class).asOf(versions.get(5)).open();
    Throwable t = catchThrowable(tooOld::get);
    assertThat(t).isInstanceOf(TrimmedException.class);
    assertThat(((TrimmedException) t).stream()).isEqualTo(COUNTER);
  }

  /** How many checkpoints the object {@code name}'s checkpoint stream holds. */
  private static long checkpointsOf(StreamLog log, String name) {
    StreamId cp = Checkpoints.streamOf(StreamId.of(name));
    return log.tails(List.of(cp)).join().streamTails().getOrDefault(cp, -1L) + 1;
  }

  /**
   * Under a history budget, views due for a checkpoint wait until the updates since their
   * checkpoints weigh the budget in all, and then the heaviest is checkpointed first, only as many
   * as bring the rest below the budget: two light objects stay without a checkpoint while the heavy
   * one gets its own.
   */
  @Test
  void dueViewsWaitForTheHistoryBudgetAndThenTheHeaviestIsCheckpointedFirst() {
    StreamLog log = runtimes.newLog();
    VCorfuRuntime writer =
        runtimes.runtime(
            RuntimeOptions.defaults()
                .withRetention(
                    Retention.DEFAULT.withCheckpointMinBytes(1).withHistoryBudgetBytes(16 << 10)));
    Counter heavy = writer.objects().open("budget-heavy", Counter.class);
    List<Counter> light =
        List.of(
            writer.objects().open("budget-light-1", Counter.class),
            writer.objects().open("budget-light-2", Counter.class));
    for (int i = 0; i < 5; i++) {
      heavy.add(1);
      light.forEach(c -> c.add(1));
    }
    light.forEach(Counter::get);
    heavy.get();
    writer.checkpointNow();
    assertThat(checkpointsOf(log, "budget-heavy") + checkpointsOf(log, "budget-light-1"))
        .as("every view is due (1 byte) but 15 updates weigh far less than the budget")
        .isZero();

    int added = 0;
    while (checkpointsOf(log, "budget-heavy") == 0 && added < 20_000) {
      for (int i = 0; i < 20; i++) {
        heavy.add(1);
      }
      added += 20;
      heavy.get();
      writer.checkpointNow();
    }
    assertThat(checkpointsOf(log, "budget-heavy")).as("after %d updates", added).isEqualTo(1);
    assertThat(added)
        .as("updates of the heavy object before its checkpoint (16 KiB at 200 bytes or less each)")
        .isGreaterThanOrEqualTo(80);
    assertThat(checkpointsOf(log, "budget-light-1") + checkpointsOf(log, "budget-light-2"))
        .as("what the light objects gathered is below the budget once the heavy one is done")
        .isZero();
    assertThat(heavy.get()).isEqualTo(5 + added);
  }

  @Test
  void closingTheRuntimeFinishesTheTrimsItsCheckpointsAllow() {
    StreamLog log = runtimes.newLog();
    // A sequencer that just started trims nothing until its snapshot registrations are complete.
    Awaitility.await("the sequencer's snapshot registrations complete")
        .atMost(Duration.ofSeconds(30))
        .until(() -> log.registerSnapshots(-1, 1_000).join().complete());
    VCorfuRuntime writer = runtimes.runtime(retaining(20));
    Counter c = writer.objects().open("auto-cp", Counter.class);
    addOneAtATime(c, 100);
    awaitCheckpoints(1);
    addOneAtATime(c, 30); // the retained 20 updates lie above the checkpoint

    // Within the two seconds that protect unregistered snapshots: no pass could trim yet.
    writer.close();

    long mark = trimMark(log, COUNTER);
    assertThat(mark).as("trimmed below the checkpoint before close returned").isPositive();
    long tail = log.tails(List.of(COUNTER)).join().streamTails().get(COUNTER);
    assertThat(tail + 1 - mark).as("the last 20 updates stay").isGreaterThanOrEqualTo(20);
    assertThat(runtimes.runtime(retaining(20)).objects().open("auto-cp", Counter.class).get())
        .isEqualTo(130);
  }

  @Test
  void aViewLeftBehindTheTrimStartsAgainFromTheCheckpoint() {
    VCorfuRuntime idle = runtimes.runtime(RuntimeOptions.defaults().withRetention(Retention.OFF));
    Counter behind = idle.objects().open("auto-cp", Counter.class);
    behind.add(5);
    assertThat(behind.get()).isEqualTo(5);

    VCorfuRuntime writer = runtimes.runtime(retaining(10));
    Counter c = writer.objects().open("auto-cp", Counter.class);
    addOneAtATime(c, 200);
    awaitCheckpoints(1);
    addOneAtATime(c, 100);
    StreamLog log = runtimes.newLog();
    Awaitility.await("trimmed past the idle view")
        .atMost(Duration.ofSeconds(20))
        .until(() -> trimMark(log, COUNTER), m -> m > 2);

    assertThat(behind.get()).isEqualTo(305);
  }

  @Test
  void keepAllCheckpointsButNeverTrims() throws Exception {
    VCorfuRuntime writer =
        runtimes.runtime(
            RuntimeOptions.defaults()
                .withRetention(
                    Retention.KEEP_ALL.withCheckpointMinBytes(1024).withHistoryBudgetBytes(0)));
    Counter c = writer.objects().open("auto-cp", Counter.class);
    addOneAtATime(c, 200);
    StreamLog log = runtimes.newLog();
    Awaitility.await("a checkpoint")
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                log.tails(List.of(Checkpoints.streamOf(COUNTER)))
                    .join()
                    .streamTails()
                    .getOrDefault(Checkpoints.streamOf(COUNTER), -1L),
            t -> t >= 0);
    writer.checkpointNow();
    assertThat(trimMark(log, COUNTER)).isZero();
  }

  /**
   * Updates the counter (on stream auto-cp) until it has two checkpoints, then 100 updates more:
   * the first checkpoint then has more than a few updates after it.
   */
  private void checkpointTwiceAndGoOn(Counter c) {
    addOneAtATime(c, 150);
    awaitCheckpoints(1);
    addOneAtATime(c, 100);
    awaitCheckpoints(2);
    addOneAtATime(c, 100);
  }

  /** The number of checkpoints of {@code object}'s stream written so far. */
  private static long checkpoints(StreamLog log, StreamId object) {
    StreamId cp = Checkpoints.streamOf(object);
    return log.tails(List.of(cp)).join().streamTails().getOrDefault(cp, -1L) + 1;
  }

  @Test
  void anObjectKeepsTheRetentionItWasOpenedWith() {
    StreamId keptStream = StreamId.of("auto-cp-kept");
    VCorfuRuntime writer = runtimes.runtime(retaining(10));
    Counter kept =
        writer
            .objects()
            .builder("auto-cp-kept", Counter.class)
            .retention(
                Retention.DEFAULT
                    .withCheckpointMinBytes(1024)
                    .withHistoryBudgetBytes(0)
                    .withRetainVersions(100_000))
            .open();
    Counter trimmed = writer.objects().open("auto-cp", Counter.class);
    StreamLog log = runtimes.newLog();
    // The kept object's checkpoints come first: a pass that trims the other object has them in
    // reach too (they reflect older versions), so only its retention keeps it whole.
    List<Long> keptVersions = addOneAtATime(kept, 150);
    Awaitility.await("two checkpoints of the kept object")
        .atMost(Duration.ofSeconds(20))
        .until(() -> checkpoints(log, keptStream) >= 2 || addOneAtATime(kept, 10).isEmpty());
    checkpointTwiceAndGoOn(trimmed);
    Awaitility.await("the other object trimmed")
        .atMost(Duration.ofSeconds(20))
        .until(() -> trimMark(log, COUNTER), m -> m > 0);
    writer.checkpointNow(); // one whole pass more, after the one that trimmed

    assertThat(trimMark(log, keptStream)).as("its own retention keeps every update").isZero();
    VCorfuRuntime reader = runtimes.runtime(retaining(10));
    assertThat(
            reader
                .objects()
                .builder("auto-cp-kept", Counter.class)
                .asOf(keptVersions.get(4))
                .open()
                .get())
        .isEqualTo(5);
  }

  @Test
  void aRuntimeKeepingTheDefaultHistoryFollowsTheClustersRetentionAndOneWithItsOwnDoesNot() {
    StreamId followed = StreamId.of("auto-cp-followed");
    StreamLog clusterSaysKeepAnHour =
        new ForwardingStreamLog(runtimes.newLog()) {
          @Override
          public CompletableFuture<SnapshotFloor> registerSnapshots(long oldest, int leaseMs) {
            return delegate
                .registerSnapshots(oldest, leaseMs)
                .thenApply(
                    f ->
                        new SnapshotFloor(
                            f.oldestRegistered(),
                            f.complete(),
                            new ClusterRetention(-1, Duration.ofHours(1))));
          }
        };
    // The default's history with its own checkpoint cadence (no budget): it follows the cluster.
    VCorfuRuntime atDefault =
        runtimes.runtime(
            clusterSaysKeepAnHour,
            RuntimeOptions.defaults().withRetention(Retention.DEFAULT.withHistoryBudgetBytes(0)));
    Counter f = atDefault.objects().open("auto-cp-followed", Counter.class);
    // Its own retention, equal to the default's values: it does not follow the cluster.
    Counter own =
        atDefault
            .objects()
            .builder("auto-cp", Counter.class)
            .retention(Retention.DEFAULT.withCheckpointMinBytes(1024).withHistoryBudgetBytes(0))
            .open();
    StreamLog log = runtimes.newLog();
    List<Long> versions = addOneAtATime(f, 100);
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    for (int i = 0; i < 20_000 && checkpoints(log, followed) < 2; i++) {
      f.add(1);
      if (i % 100 == 0) {
        atDefault.checkpointNow();
        assertThat(System.nanoTime() - deadline).as("two checkpoints in time").isNegative();
      }
    }
    assertThat(checkpoints(log, followed)).isGreaterThanOrEqualTo(2);
    checkpointTwiceAndGoOn(own);
    Awaitility.await("the object with its own retention trimmed")
        .atMost(Duration.ofSeconds(20))
        .until(() -> trimMark(log, COUNTER), m -> m > 0);
    atDefault.checkpointNow();

    assertThat(trimMark(log, followed)).as("the cluster keeps an hour").isZero();
    assertThat(
            runtimes
                .runtime()
                .objects()
                .builder("auto-cp-followed", Counter.class)
                .asOf(versions.get(9))
                .open()
                .get())
        .isEqualTo(10);
  }
}
