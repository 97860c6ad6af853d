package io.vcorfu.protocol.netty;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A command's Netty leak sampling: vcorfu's interval unless the JVM was given one. */
class LeakSamplingTest {
  private String saved;

  @BeforeEach
  void save() {
    saved = System.getProperty(LeakSampling.PROPERTY);
  }

  @AfterEach
  void restore() {
    if (saved == null) {
      System.clearProperty(LeakSampling.PROPERTY);
    } else {
      System.setProperty(LeakSampling.PROPERTY, saved);
    }
  }

  @Test
  void setsTheIntervalWhenNoneWasGiven() {
    System.clearProperty(LeakSampling.PROPERTY);
    LeakSampling.configure();
    assertThat(System.getProperty(LeakSampling.PROPERTY)).isEqualTo("4096");
  }

  @Test
  void anIntervalGivenOnTheCommandLineWins() {
    System.setProperty(LeakSampling.PROPERTY, "1");
    LeakSampling.configure();
    assertThat(System.getProperty(LeakSampling.PROPERTY)).isEqualTo("1");
  }
}
