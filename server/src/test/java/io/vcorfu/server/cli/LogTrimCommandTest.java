package io.vcorfu.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vcorfu log trim} against a durable node on loopback: marks past the stream's tail and
 * negative marks are refused with one clear line, and the stream stays writable.
 */
class LogTrimCommandTest {
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

  private void appendTwice() {
    assertThat(log("append", "--stream", "s1", "a").code()).isZero();
    assertThat(log("append", "--stream", "s1", "b").code()).isZero();
  }

  @Test
  void aTrimPastTheTailIsRefusedAndTheStreamStaysWritable() {
    appendTwice();
    CliRun trim = log("trim", "--stream", "s1", "--before", "100");
    assertThat(trim.code()).isEqualTo(1);
    assertThat(trim.out()).isEmpty();
    assertThat(trim.err())
        .startsWith("vcorfu: ")
        .contains("s1")
        .contains("100")
        .contains("tail is 1")
        .doesNotContain("Exception");
    CliRun append = log("append", "--stream", "s1", "c");
    assertThat(append.code()).as(append.err()).isZero();
    assertThat(append.out()).contains("s1 2");
    assertThat(
            log("read", "--stream", "s1")
                .out()
                .lines()
                .map(l -> l.substring(l.lastIndexOf(' ') + 1)))
        .containsExactly("a", "b", "c");
  }

  @Test
  void aNegativeTrimMarkIsRefusedAndTheStreamStaysWritable() {
    appendTwice();
    CliRun trim = log("trim", "--stream", "s1", "--before", "-5");
    assertThat(trim.code())
        .as("a usage error, refused before it is sent")
        .isEqualTo(VcorfuCli.USAGE);
    assertThat(trim.err())
        .startsWith("vcorfu: --before must be 0 or more, not -5")
        .doesNotContain("Exception");
    CliRun append = log("append", "--stream", "s1", "c");
    assertThat(append.code()).as(append.err()).isZero();
    assertThat(append.out()).contains("s1 2");
  }

  @Test
  void aTrimUpToTheNextAddressReleasesTheWholeStreamAndItStaysWritable() {
    appendTwice();
    CliRun trim = log("trim", "--stream", "s1", "--before", "2");
    assertThat(trim.code()).as(trim.err()).isZero();
    assertThat(trim.out()).isEqualTo("s1 trimmed below 2");
    CliRun append = log("append", "--stream", "s1", "c");
    assertThat(append.code()).as(append.err()).isZero();
    assertThat(append.out()).contains("s1 2");
    assertThat(log("read", "--stream", "s1", "--from", "2").out()).endsWith(" c");
  }
}
