package io.vcorfu.protocol.netty;

/**
 * How often a vcorfu process has Netty track a pooled buffer for leaks: one buffer in {@value
 * #INTERVAL}, where Netty's own default is one in 128. Each tracked buffer records the stack of its
 * allocation, which at Netty's default took 2.6% of a node's processor time and 3.4% of its
 * clients' when every request is a small message (benchmarks/HISTORY.md, "Netty's leak tracking
 * samples one buffer in 4096"); a leak repeats with the requests that cause it, so one in {@value
 * #INTERVAL} still reports it (Netty logs {@code LEAK:} with the allocation's stack) within seconds
 * of steady load. The test suite tracks every buffer ({@code
 * -Dio.netty.leakDetection.level=paranoid}).
 *
 * <p>Netty reads the interval once, when its leak detector's class is loaded: {@link #configure} is
 * called first thing in a command's {@code main}, before any buffer is allocated. An interval given
 * on the command line ({@code -D}{@value #PROPERTY}{@code =N}) wins. An application that embeds the
 * client keeps whatever it sets for Netty: the library changes no global setting.
 */
public final class LeakSampling {
  /** Netty's system property for the sampling interval. */
  public static final String PROPERTY = "io.netty.leakDetection.samplingInterval";

  /** One buffer in this many is tracked. */
  public static final int INTERVAL = 4096;

  private LeakSampling() {}

  /** Sets {@value #PROPERTY} to {@value #INTERVAL} unless this JVM was given a value. */
  public static void configure() {
    if (System.getProperty(PROPERTY) == null) {
      System.setProperty(PROPERTY, Integer.toString(INTERVAL));
    }
  }
}
