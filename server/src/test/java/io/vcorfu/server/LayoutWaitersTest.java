package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.Endpoint;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Layout questions that wait for a newer layout: answered when the node adopts one, with the layout
 * it has once the wait is over, at once when the node's layout is already newer or the question
 * does not wait, and at once when too many wait already.
 */
class LayoutWaitersTest {
  private final AtomicReference<Layout> layout = new AtomicReference<>(at(3));
  private final LayoutWaiters waiters = new LayoutWaiters(layout::get);

  private static Layout at(long epoch) {
    return Layout.singleNode(new Endpoint("n", 1), "c").withEpoch(epoch);
  }

  private void adopt(long epoch) {
    layout.set(at(epoch));
    waiters.adopted(layout.get());
  }

  @Test
  void aQuestionWaitsUntilTheNodeAdoptsANewerLayoutAndIsAnsweredWithIt() throws Exception {
    CompletableFuture<Layout> answer = waiters.answer(3, 60_000);
    assertThat(answer).isNotDone();
    adopt(3);
    assertThat(answer).as("a layout of the same epoch is not newer").isNotDone();
    adopt(4);
    assertThat(answer.getNow(null).epoch()).isEqualTo(4);
    assertThat(waiters.waiting()).isZero();
  }

  @Test
  void aQuestionIsAnsweredAtOnceWhenTheLayoutIsAlreadyNewerOrItDoesNotWait() {
    assertThat(waiters.answer(2, 60_000).getNow(null).epoch()).isEqualTo(3);
    assertThat(waiters.answer(3, 0).getNow(null).epoch()).isEqualTo(3);
    assertThat(waiters.waiting()).isZero();
  }

  @Test
  void aQuestionWhoseWaitIsOverIsAnsweredWithTheLayoutTheNodeHas() throws Exception {
    CompletableFuture<Layout> answer = waiters.answer(3, 50);
    assertThat(answer.get(10, TimeUnit.SECONDS).epoch()).isEqualTo(3);
    assertThat(waiters.waiting()).isZero();
  }

  @Test
  void aNodeWithNoLayoutYetAnswersNullOnceTheWaitIsOver() throws Exception {
    layout.set(null);
    assertThat(waiters.answer(0, 50).get(10, TimeUnit.SECONDS)).isNull();
  }

  @Test
  void questionsBeyondTheLimitAreAnsweredAtOnce() {
    List<CompletableFuture<Layout>> held = new ArrayList<>();
    for (int i = 0; i < LayoutWaiters.MAX_WAITING; i++) {
      held.add(waiters.answer(3, 60_000));
    }
    assertThat(held).noneMatch(CompletableFuture::isDone);
    assertThat(waiters.answer(3, 60_000).getNow(null).epoch()).isEqualTo(3);
    adopt(5);
    assertThat(held).allMatch(f -> f.getNow(null).epoch() == 5);
    assertThat(waiters.waiting()).isZero();
  }
}
