package io.vcorfu.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vcorfu log pin}, {@code unpin} and {@code pins} against a durable node on loopback: a hold
 * stops trims where the stream was trimmed when it was taken, and says so; it is listed by name; an
 * empty name is refused before anything is sent; once released, the trim goes on.
 */
class LogPinsCommandTest {
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

  @Test
  void aHoldStopsTrimsUntilItIsReleased() {
    for (String v : new String[] {"a", "b", "c", "d", "e"}) {
      assertThat(log("append", "--stream", "s1", v).code()).isZero();
    }
    assertThat(log("trim", "--stream", "s1", "--before", "1").code()).isZero();
    CliRun pin = log("pin", "--stream", "s1", "--name", "audit");
    assertThat(pin.code()).as(pin.err()).isZero();
    assertThat(pin.out().strip()).isEqualTo("s1 held from address 1 as 'audit'");

    CliRun trim = log("trim", "--stream", "s1", "--before", "4");
    assertThat(trim.code()).as(trim.err()).isZero();
    assertThat(trim.out()).contains("s1 trimmed below 1 (held there; see vcorfu log pins");
    CliRun pins = log("pins", "--stream", "s1", "--name", "audit");
    assertThat(pins.code()).as(pins.err()).isZero();
    assertThat(pins.out()).contains("trimmed below 1").contains("pins: 'audit'@1");
    assertThat(log("read", "--stream", "s1").out().lines()).hasSize(4);

    CliRun json = log("pins", "--stream", "s1", "--output", "json");
    assertThat(json.out()).contains("\"trimMark\":1").contains("\"at\":1");

    CliRun unpin = log("unpin", "--stream", "s1", "--name", "audit");
    assertThat(unpin.code()).as(unpin.err()).isZero();
    assertThat(unpin.out()).contains("hold 'audit' released");
    assertThat(log("pins", "--stream", "s1").out()).contains("pins: none");
    assertThat(log("trim", "--stream", "s1", "--before", "4").out().strip())
        .isEqualTo("s1 trimmed below 4");
  }

  @Test
  void anEmptyHoldNameIsRefusedBeforeAnythingIsSent() {
    assertThat(log("append", "--stream", "s1", "a").code()).isZero();
    CliRun pin = log("pin", "--stream", "s1", "--name", "");
    assertThat(pin.code()).isEqualTo(VcorfuCli.USAGE);
    assertThat(pin.err()).startsWith("vcorfu: --name").doesNotContain("Exception");
    assertThat(log("pins", "--stream", "s1").out()).contains("pins: none");
  }
}
