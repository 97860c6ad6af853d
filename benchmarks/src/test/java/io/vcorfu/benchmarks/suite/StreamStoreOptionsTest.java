package io.vcorfu.benchmarks.suite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The stream-store suite's ports: P .. P+13 must all exist (the headline node's /metrics is P+13);
 * its node flags are passed on one argument each.
 */
class StreamStoreOptionsTest {
  private static StreamStoreOptions.Settings parse(String... args) {
    StreamStoreSuite suite = new StreamStoreSuite();
    new CommandLine(suite).parseArgs(args);
    return suite.options.settings();
  }

  @Test
  void theBasePortLeavesRoomForFourteenPorts() {
    assertThat(parse("--base-port", "65522").basePort()).isEqualTo(65522);
    assertThatThrownBy(() -> parse("--base-port", "65523"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--base-port must leave room for 14 ports below 65536");
  }

  @Test
  void nodeFlagsArePassedOnOneArgumentEachAndDefaultToNone() {
    StreamStoreSuite suite = new StreamStoreSuite();
    new CommandLine(suite).parseArgs("--node-flags", "  --warm-up-s   30 ");
    assertThat(suite.options.nodeFlags()).containsExactly("--warm-up-s", "30");

    StreamStoreSuite plain = new StreamStoreSuite();
    new CommandLine(plain).parseArgs("--headline");
    assertThat(plain.options.nodeFlags()).isEmpty();
  }
}
