package io.vcorfu.benchmarks.suite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class YcsbOptionsTest {
  private static YcsbOptions.Settings parse(String... args) {
    YcsbSuite suite = new YcsbSuite();
    new CommandLine(suite).parseArgs(args);
    return suite.options.settings();
  }

  @Test
  void defaultsQuickAndSecondsAreTheScripts() {
    YcsbOptions.Settings s = parse();
    assertThat(List.of(s.records(), s.operations(), s.threads(), s.buckets(), s.readLeaseMs()))
        .containsExactly(10000, 100000, 8, 100, 1000);
    assertThat(List.of(s.coldSeconds(), s.warmAfter(), s.basePort(), s.warmupOps()))
        .containsExactly(10, 30, 19200, 0);
    assertThat(s.workloads()).containsExactly("a", "b", "c", "d", "e", "f");
    assertThat(s.seconds()).isNull();
    YcsbOptions.Settings q = parse("--quick", "--workloads", "C,b");
    assertThat(List.of(q.records(), q.operations())).containsExactly(500, 2000);
    assertThat(q.workloads()).containsExactly("c", "b");
    assertThat(parse("--quick", "--seconds", "20").operations()).isEqualTo(1_000_000_000);
    assertThat(parse("--seconds", "20", "--operations", "5").operations()).isEqualTo(5);
  }

  @Test
  void badValuesAreRefused() {
    assertThatThrownBy(() -> parse("--workloads", "a,g")).hasMessageContaining("letters a to f");
    assertThatThrownBy(() -> parse("--workloads", "")).hasMessageContaining("at least one");
    assertThatThrownBy(() -> parse("--threads", "0")).hasMessageContaining("--threads must be");
    assertThatThrownBy(() -> parse("--read-lease-ms", "-1"))
        .hasMessageContaining("0 or a positive");
    assertThat(parse("--read-lease-ms", "0").readLeaseMs()).isZero();
    assertThatThrownBy(() -> parse("--base-port", "65533")).hasMessageContaining("four ports");
  }

  @Test
  void theHeaderSaysWhatRan() {
    String h = YcsbSuite.header(parse("--seconds", "40", "--vcorfu-fsync-interval-ms", "1000"));
    assertThat(h)
        .startsWith("# YCSB: vcorfu vs redis vs etcd\n\n10000 records of 10 fields x 100 bytes,")
        .contains("1000000000 operations or 40 s, whichever ends first, 8 client threads per")
        .contains("vcorfu: one node, its log forced every 1000 ms, 100 buckets per table")
        .endsWith("favour vcorfu.\n\n");
    assertThat(YcsbSuite.header(parse("--quick")))
        .startsWith("# YCSB: vcorfu vs redis vs etcd (--quick smoke run)\n")
        .contains("durable (fsync before every acknowledgement)");
    assertThat(YcsbSuite.header(parse("--vcorfu-node-flags", " --warm-up-s  60 ")))
        .contains(
            "one node, durable (fsync before every acknowledgement), started with --warm-up-s 60,"
                + " 100");
    assertThat(parse("--vcorfu-node-flags", "--warm-up-s 60").vcorfuNodeFlags())
        .containsExactly("--warm-up-s", "60");
    assertThat(parse().vcorfuNodeFlags()).isEmpty();
  }
}
