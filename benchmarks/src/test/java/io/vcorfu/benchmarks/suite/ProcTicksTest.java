package io.vcorfu.benchmarks.suite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import org.junit.jupiter.api.Test;

class ProcTicksTest {
  @Test
  void aStatLinesTimesAreCountedFromTheLastParenthesisWhateverTheNameHolds() {
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
    String line = "4242 (C2 Compiler) x)) S 1 4242 4242 0 -1 4194560 10 0 0 0 1234 56 0 0 20 0";
    assertThat(ProcTicks.ticks(line)).isEqualTo(1290);
    assertThatThrownBy(() -> ProcTicks.ticks("no name here"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void thisProcessAndItsCompilersHaveUsedProcessorTimeAndTheMachineMore() throws IOException {
    long pid = ProcessHandle.current().pid();
    double spin = 0;
    long until = System.nanoTime() + 300_000_000L; // bounded: 0.3 s of work to be counted
    for (int i = 0; i < 100_000_000 && System.nanoTime() < until; i++) {
      spin += Math.sqrt(i);
    }
    assertThat(spin).isPositive();
    double process = ProcTicks.process(pid);
    assertThat(process).isPositive();
    assertThat(ProcTicks.threads(pid, "C1 Compiler", "C2 Compiler")).isBetween(0.0, process);
    assertThat(ProcTicks.threads(pid, "no thread is named so")).isZero();
    assertThat(ProcTicks.machine()).isGreaterThanOrEqualTo(process);
  }
}
