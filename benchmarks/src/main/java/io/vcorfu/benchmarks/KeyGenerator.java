package io.vcorfu.benchmarks;

import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Draws key indexes in {@code [0, keys)} from a seeded distribution, so a run can be repeated
 * exactly. Not thread-safe: give each thread its own generator (with its own seed).
 */
interface KeyGenerator {
  /** The next key index, in {@code [0, keys())}. */
  long next();

  /** How many distinct key indexes this generator can return. */
  long keys();

  /** The key distributions the collection benchmarks know, by their command-line name. */
  enum Distribution {
    UNIFORM,
    /** Zipf with theta {@link ZipfGenerator#DEFAULT_THETA}: index 0 is the hottest key. */
    ZIPF;

    /** A generator over {@code keys} indexes drawing from this distribution with {@code seed}. */
    public KeyGenerator generator(long keys, long seed) {
      return switch (this) {
        case UNIFORM -> uniform(keys, seed);
        case ZIPF -> new ZipfGenerator(keys, ZipfGenerator.DEFAULT_THETA, seed);
      };
    }

    /** The lower-case name used on the command line and in output lines. */
    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }

    /** Parses a command-line name ({@code uniform} or {@code zipf}, any case). */
    public static Distribution parse(String s) {
      for (Distribution d : values()) {
        if (d.label().equalsIgnoreCase(s.trim())) {
          return d;
        }
      }
      throw new IllegalArgumentException(
          "unknown key distribution '" + s + "'; use uniform or zipf");
    }
  }

  /** Every index in {@code [0, keys)} equally likely. */
  static KeyGenerator uniform(long keys, long seed) {
    if (keys < 1) {
      throw new IllegalArgumentException("a key generator needs at least one key, not " + keys);
    }
    SplittableRandom rnd = new SplittableRandom(seed);
    return new KeyGenerator() {
      @Override
      public long next() {
        return rnd.nextLong(keys);
      }

      @Override
      public long keys() {
        return keys;
      }
    };
  }
}
