package io.vcorfu.benchmarks.suite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class RebuildOptionsTest {
  private static RebuildOptions parse(String... args) {
    RebuildSuite suite = new RebuildSuite();
    new CommandLine(suite).parseArgs(args);
    return suite.options.check();
  }

  @Test
  void theDefaultsAreTheScripts() {
    RebuildOptions o = parse();
    assertThat(o.partList()).containsExactly("rebuild");
    assertThat(
            List.of(
                o.fillMb,
                o.valueSize,
                o.rebuildRateMb,
                o.rebuildMaxP99Ms,
                o.memberHealDelayMs,
                o.fgThreads,
                o.fgSize,
                o.baselineS,
                o.fgLeadS,
                o.basePort))
        .containsExactly(1024, 65536, 128, 20, 30000, 8, 1024, 10, 20, 19600);
    assertThat(o.workdir).isNull();
  }

  @Test
  void aBoundOfZeroIsAllowedButCountsOfNothingAndUnknownPartsAreNot() {
    assertThat(parse("--rebuild-max-p99-ms", "0").rebuildMaxP99Ms).isZero();
    assertThat(parse("--pre-join-copy-max-s", "0").preJoinCopyMaxS).isZero();
    assertThatThrownBy(() -> parse("--pre-join-copy-max-s", "-1"))
        .hasMessageContaining("--pre-join-copy-max-s must be 0 or more seconds");
    assertThatThrownBy(() -> parse("--rebuild-max-p99-ms", "-1"))
        .hasMessageContaining("must be a whole number");
    assertThatThrownBy(() -> parse("--fill-mb", "0"))
        .hasMessage("--fill-mb must be a positive integer, got '0'");
    assertThatThrownBy(() -> parse("--parts", "rebuild,tiemline"))
        .hasMessageContaining("--parts takes");
    assertThatThrownBy(() -> parse("--parts", "member")).hasMessageContaining("needs grow first");
    assertThat(parse("--parts", "grow,member,degraded").has("member")).isTrue();
    assertThat(parse("--parts", "pause,rebuild").pauseS).isEqualTo(5);
    assertThatThrownBy(() -> parse("--pause-s", "0"))
        .hasMessage("--pause-s must be a positive integer, got '0'");
  }
}
