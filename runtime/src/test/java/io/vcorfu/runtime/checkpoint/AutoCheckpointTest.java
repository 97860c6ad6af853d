package io.vcorfu.runtime.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.vcorfu.client.StreamLog;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.runtime.Retention;
import io.vcorfu.runtime.RuntimeOptions;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.example.Counter;
import io.vcorfu.runtime.testing.TestRuntimes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Automatic checkpoints: a live view that played enough updates is checkpointed, its stream and
 * checkpoint stream are trimmed below a checkpoint that keeps the retained versions readable;
 * versions older than that fail with a typed error, never a wrong answer; a view left behind the
 * trim starts again from the checkpoint.
 */
class AutoCheckpointTest {
  private static final StreamId COUNTER = StreamId.of("auto-cp");

  @RegisterExtension final TestRuntimes runtimes = new TestRuntimes();

  private static RuntimeOptions retaining(long versions) {
    return RuntimeOptions.defaults()
        .withRetention(Retention.DEFAULT.withCheckpointMinBytes(1024).withRetainVersions(versions));
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
                .withRetention(Retention.KEEP_ALL.withCheckpointMinBytes(1024)));
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
}
