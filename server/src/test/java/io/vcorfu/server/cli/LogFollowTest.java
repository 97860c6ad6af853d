package io.vcorfu.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vcorfu log follow} against a durable node on loopback: entries appended while it runs are
 * printed once each, in stream order; without {@code --from} nothing appended before it started;
 * with it, what is there first; bad flags are refused before it connects.
 */
class LogFollowTest {
  @TempDir Path tmp;
  private LoopbackNode node;

  @BeforeEach
  void start() {
    node = LoopbackNode.start(tmp.resolve("data"));
  }

  @AfterEach
  void stop() {
    node.close();
  }

  private CliRun log(String... args) {
    return node.log(args);
  }

  private CompletableFuture<CliRun> followInBackground(String... args) {
    return CompletableFuture.supplyAsync(() -> log(args));
  }

  @Test
  void fromAnAddressItPrintsWhatIsThereThenWhatIsAppendedInOrderOnce() throws Exception {
    assertThat(log("append", "--stream", "f", "a").code()).isZero();
    assertThat(log("append", "--stream", "f", "b").code()).isZero();
    CompletableFuture<CliRun> follow =
        followInBackground("follow", "--stream", "f", "--from", "0", "--count", "4");
    assertThat(log("append", "--stream", "other", "x").code()).isZero();
    assertThat(log("append", "--stream", "f", "c").code()).isZero();
    assertThat(log("append", "--stream", "f", "d").code()).isZero();

    CliRun run = follow.get(30, TimeUnit.SECONDS);
    assertThat(run.code()).as(run.err()).isZero();
    assertThat(run.lines()).hasSize(4);
    List<String> addresses = new ArrayList<>();
    List<String> values = new ArrayList<>();
    for (String line : run.lines()) {
      String[] f = line.split(" ");
      addresses.add(f[0]);
      values.add(f[2]);
    }
    assertThat(addresses).containsExactly("0", "1", "2", "3");
    assertThat(values).containsExactly("a", "b", "c", "d");
  }

  @Test
  void withoutFromNothingAppendedBeforeItStartedIsPrinted() throws Exception {
    assertThat(log("append", "--stream", "g", "old").code()).isZero();
    CompletableFuture<CliRun> follow =
        followInBackground("follow", "--stream", "g", "--count", "1");
    // Appends go on until the follower has printed one: whichever it met first after its start.
    for (int i = 0; i < 200 && !follow.isDone(); i++) {
      assertThat(log("append", "--stream", "g", "new-" + i).code()).isZero();
      try {
        follow.get(50, TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.TimeoutException stillWaiting) {
        // the next append
      }
    }
    CliRun run = follow.get(30, TimeUnit.SECONDS);
    assertThat(run.code()).as(run.err()).isZero();
    // One of the new entries (new-k sits at stream address k + 1), never the old one.
    assertThat(run.lines()).hasSize(1);
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("^(\\d+) \\d+ new-(\\d+)$").matcher(run.lines().get(0));
    assertThat(m.matches()).as(run.out()).isTrue();
    assertThat(Long.parseLong(m.group(1))).isEqualTo(Long.parseLong(m.group(2)) + 1);
  }

  @Test
  void aStreamNeverWrittenIsWaitedFor() throws Exception {
    CompletableFuture<CliRun> follow =
        followInBackground("follow", "--stream", "later", "--from", "0", "--count", "1");
    assertThat(log("append", "--stream", "later", "first").code()).isZero();
    CliRun run = follow.get(30, TimeUnit.SECONDS);
    assertThat(run.code()).as(run.err()).isZero();
    assertThat(run.lines()).singleElement().asString().startsWith("0 ").endsWith(" first");
  }

  @Test
  void badFlagsAreRefusedWithOneLine() {
    CliRun zero = log("follow", "--stream", "f", "--count", "0");
    assertThat(zero.code()).isEqualTo(2);
    assertThat(zero.err()).contains("--count must be at least 1, got 0");
    CliRun negative = log("follow", "--stream", "f", "--from", "-1");
    assertThat(negative.code()).isEqualTo(2);
    CliRun noStream = log("follow");
    assertThat(noStream.code()).isEqualTo(2);
    assertThat(noStream.err()).contains("--stream");
  }
}
