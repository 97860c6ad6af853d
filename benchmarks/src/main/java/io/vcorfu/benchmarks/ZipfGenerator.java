package io.vcorfu.benchmarks;

import java.util.SplittableRandom;

/**
 * Zipf-distributed key indexes: index {@code i} (0-based) is drawn with probability proportional to
 * {@code 1 / (i + 1)^theta}. Uses the constant-time inversion of Gray et al., "Quickly generating
 * billion-record synthetic databases" (SIGMOD 1994), which needs the generalized harmonic number
 * {@code zeta(n, theta)} once per generator (O(n) to build). Index 0 is the hottest key; indexes
 * are not scrambled (callers spread them by name or hash). Not thread-safe.
 */
final class ZipfGenerator implements KeyGenerator {
  /** The skew the YCSB workloads and the vCorfu paper's Figure 16 use. */
  public static final double DEFAULT_THETA = 0.99;

  private final long keys;
  private final double theta;
  private final double zetaN;
  private final double alpha;
  private final double eta;
  private final double secondThreshold;
  private final SplittableRandom rnd;

  public ZipfGenerator(long keys, double theta, long seed) {
    if (keys < 2) {
      throw new IllegalArgumentException("a Zipf generator needs at least two keys, not " + keys);
    }
    if (!(theta > 0 && theta < 1)) {
      throw new IllegalArgumentException(
          "Zipf theta must be strictly between 0 and 1, not " + theta);
    }
    this.keys = keys;
    this.theta = theta;
    this.zetaN = zeta(keys, theta);
    this.alpha = 1.0 / (1.0 - theta);
    double zeta2 = zeta(2, theta);
    this.eta = (1 - Math.pow(2.0 / keys, 1 - theta)) / (1 - zeta2 / zetaN);
    this.secondThreshold = 1 + Math.pow(0.5, theta);
    this.rnd = new SplittableRandom(seed);
  }

  /** The generalized harmonic number {@code sum over i = 1..n of 1 / i^theta}. */
  static double zeta(long n, double theta) {
    double sum = 0;
    for (long i = 1; i <= n; i++) {
      sum += 1.0 / Math.pow(i, theta);
    }
    return sum;
  }

  /** The exact probability of drawing index {@code i}. */
  public double probability(long i) {
    if (i < 0 || i >= keys) {
      return 0;
    }
    return 1.0 / Math.pow(i + 1, theta) / zetaN;
  }

  @Override
  public long next() {
    double u = rnd.nextDouble();
    double uz = u * zetaN;
    if (uz < 1.0) {
      return 0;
    }
    if (uz < secondThreshold) {
      return 1;
    }
    long i = (long) (keys * Math.pow(eta * u - eta + 1, alpha));
    return Math.min(Math.max(i, 0), keys - 1);
  }

  @Override
  public long keys() {
    return keys;
  }

  public double theta() {
    return theta;
  }
}
