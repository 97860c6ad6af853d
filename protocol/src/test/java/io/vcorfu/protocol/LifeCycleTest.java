package io.vcorfu.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.protocol.LifeCycle.State;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class LifeCycleTest {

  /** Drives a fresh lifecycle to {@code target} along legal transitions. */
  private static LifeCycle at(State target) {
    LifeCycle lc = new LifeCycle("server");
    List<State> path =
        switch (target) {
          case NEW -> List.of();
          case STARTING -> List.of(State.STARTING);
          case RUNNING -> List.of(State.STARTING, State.RUNNING);
          case CLOSING -> List.of(State.STARTING, State.RUNNING, State.CLOSING);
          case CLOSED -> List.of(State.STARTING, State.RUNNING, State.CLOSING, State.CLOSED);
          case EXCEPTION -> List.of(State.STARTING, State.EXCEPTION);
        };
    path.forEach(lc::transition);
    assertThat(lc.get()).isEqualTo(target);
    return lc;
  }

  private static final Set<List<State>> LEGAL =
      Set.of(
          List.of(State.NEW, State.STARTING),
          List.of(State.NEW, State.CLOSING),
          List.of(State.NEW, State.CLOSED),
          List.of(State.STARTING, State.RUNNING),
          List.of(State.STARTING, State.CLOSING),
          List.of(State.STARTING, State.EXCEPTION),
          List.of(State.RUNNING, State.CLOSING),
          List.of(State.RUNNING, State.EXCEPTION),
          List.of(State.EXCEPTION, State.CLOSING),
          List.of(State.EXCEPTION, State.CLOSED),
          List.of(State.CLOSING, State.CLOSED),
          List.of(State.CLOSING, State.EXCEPTION));

  static Stream<Arguments> allPairs() {
    return EnumSet.allOf(State.class).stream()
        .flatMap(from -> EnumSet.allOf(State.class).stream().map(to -> Arguments.of(from, to)));
  }

  @ParameterizedTest
  @MethodSource("allPairs")
  void everyTransitionFollowsTheTable(State from, State to) {
    LifeCycle lc = at(from);
    if (LEGAL.contains(List.of(from, to))) {
      lc.transition(to);
      assertThat(lc.get()).isEqualTo(to);
    } else {
      assertThatThrownBy(() -> lc.transition(to))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("from " + from + " to " + to);
      assertThat(lc.get()).isEqualTo(from);
    }
  }

  @Test
  void compareAndTransitionOnlyMovesFromTheExpectedState() {
    LifeCycle lc = at(State.STARTING);
    assertThat(lc.compareAndTransition(State.RUNNING, State.CLOSING)).isFalse();
    assertThat(lc.get()).isEqualTo(State.STARTING);
    assertThat(lc.compareAndTransition(State.STARTING, State.RUNNING)).isTrue();
    assertThatThrownBy(() -> lc.compareAndTransition(State.RUNNING, State.NEW))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void assertCurrentNamesTheState() {
    LifeCycle lc = at(State.CLOSED);
    assertThatThrownBy(() -> lc.assertCurrent(State.RUNNING))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("server is CLOSED");
  }

  @Test
  void exactlyOneOfManyConcurrentClosersWins() throws Exception {
    int threads = 8;
    for (int round = 0; round < 50; round++) {
      LifeCycle lc = at(State.RUNNING);
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      CountDownLatch go = new CountDownLatch(1);
      try {
        List<Future<Boolean>> results =
            Stream.generate(
                    () ->
                        pool.submit(
                            () -> {
                              go.await();
                              return lc.startClosing();
                            }))
                .limit(threads)
                .toList();
        go.countDown();
        int winners = 0;
        for (Future<Boolean> f : results) {
          winners += f.get(10, TimeUnit.SECONDS) ? 1 : 0;
        }
        assertThat(winners).isEqualTo(1);
        assertThat(lc.get()).isEqualTo(State.CLOSING);
      } finally {
        pool.shutdownNow();
      }
    }
  }
}
