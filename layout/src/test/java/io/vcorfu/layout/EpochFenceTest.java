package io.vcorfu.layout;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.protocol.SealedException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class EpochFenceTest {
  @Test
  void aWriteWhoseTokenEpochIsSealedIsRefusedWithoutRunning() {
    EpochFence fence = new EpochFence(3);
    boolean[] ran = new boolean[1];
    CompletableFuture<String> f =
        fence.admit(
            2,
            () -> {
              ran[0] = true;
              return CompletableFuture.completedFuture("written");
            });
    assertThat(f).isCompletedExceptionally();
    assertThat(ran[0]).isFalse();
    try {
      f.join();
    } catch (CompletionException e) {
      assertThat(e.getCause())
          .isInstanceOfSatisfying(
              SealedException.class, s -> assertThat(s.sealedEpoch()).isEqualTo(3));
    }
    assertThat(fence.admit(3, () -> CompletableFuture.completedFuture("ok")).join())
        .isEqualTo("ok");
    assertThat(fence.admit(4, () -> CompletableFuture.completedFuture("newer")).join())
        .isEqualTo("newer");
  }

  @Test
  void aSealCompletesOnlyAfterEveryWriteAdmittedBeforeItFinished() {
    EpochFence fence = new EpochFence(1);
    CompletableFuture<String> slow = new CompletableFuture<>();
    CompletableFuture<String> admitted = fence.admit(1, () -> slow);
    CompletableFuture<Void> sealed = fence.seal(2);
    assertThat(sealed).as("the write admitted at epoch 1 is still running").isNotDone();
    assertThat(fence.admit(1, () -> CompletableFuture.completedFuture("late")))
        .isCompletedExceptionally();
    // A write at the new epoch neither blocks the seal nor is blocked by it.
    CompletableFuture<String> current = new CompletableFuture<>();
    fence.admit(2, () -> current);
    assertThat(sealed).isNotDone();
    slow.complete("done");
    assertThat(admitted.join()).isEqualTo("done");
    assertThat(sealed).isDone();
    assertThat(fence.seal(2)).as("sealing the same epoch again waits for nothing older").isDone();
    assertThat(fence.epoch()).isEqualTo(2);
    assertThat(fence.seal(1)).isDone();
    assertThat(fence.epoch()).as("a seal never lowers the epoch").isEqualTo(2);
  }

  @Test
  void aFailedWriteCountsAsFinished() {
    EpochFence fence = new EpochFence(1);
    CompletableFuture<String> failing = new CompletableFuture<>();
    fence.admit(1, () -> failing);
    CompletableFuture<Void> sealed = fence.seal(5);
    failing.completeExceptionally(new IllegalStateException("disk gone"));
    assertThat(sealed).isDone();
  }
}
