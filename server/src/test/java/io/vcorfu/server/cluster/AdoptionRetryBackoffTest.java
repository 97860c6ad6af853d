package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** The back-off and warnings of a layout whose adoption keeps failing ({@link AdoptionRetry}). */
class AdoptionRetryBackoffTest {
  @Test
  void theDelayDoublesUpToTheLongestAndStartsAnewAfterASuccess() {
    AdoptionRetry retry = new AdoptionRetry();
    List<Long> delays = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      delays.add(retry.failed().toMillis());
    }
    assertThat(delays).containsExactly(100L, 200L, 400L, 800L, 1600L, 2000L, 2000L, 2000L);
    assertThat(retry.failures()).isEqualTo(8);
    retry.succeeded();
    assertThat(retry.failures()).isZero();
    assertThat(retry.failed()).isEqualTo(Duration.ofMillis(100));
  }

  @Test
  void eachKindOfFailureIsWarnedAboutOnceUntilASuccess() {
    AdoptionRetry retry = new AdoptionRetry();
    RuntimeException zooKeeper =
        new IllegalStateException("cannot learn from ZooKeeper", new IOException("timed out"));
    RuntimeException disk =
        new CompletionException(new UncheckedIOException(new IOException("cannot write")));
    assertThat(retry.warns(zooKeeper)).isTrue();
    assertThat(retry.warns(new IllegalStateException("again", new IOException("later"))))
        .as("the same kind, another message")
        .isFalse();
    assertThat(retry.warns(disk)).as("another kind").isTrue();
    assertThat(retry.warns(disk)).isFalse();
    assertThat(retry.warns(new IllegalStateException("no cause"))).as("another chain").isTrue();
    retry.succeeded();
    assertThat(retry.warns(zooKeeper)).as("after a success").isTrue();
  }
}
