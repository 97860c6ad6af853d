package io.vcorfu.collections.internal;

/**
 * A Luby-Rackoff permutation: a balanced Feistel network over values of {@code 2 * halfBits} bits.
 * Each round maps the halves (L, R) to (R, L xor F(R, k)), with F a fixed integer mixing function
 * and k that round's key. Whatever F is, every round is invertible, so the whole network is a
 * bijection on its domain; with three or more rounds of a well-mixing F the output bits depend on
 * all input bits, which spreads clustered inputs (consecutive numbers, similar strings' hashes)
 * evenly.
 *
 * <p>{@link #BUCKETS} is the one instance replicated maps use to place keys: 64-bit domain, four
 * rounds, round keys the first 128 bits of the fractional part of pi ({@code 0x243F6A88,
 * 0x85A308D3, 0x13198A2E, 0x03707344}). These constants are part of the on-log format of every
 * {@code CSMRMap}: changing them would move keys to other buckets. Immutable and thread-safe.
 */
public final class FeistelPermutation {
  /** The permutation {@code CSMRMap} places keys with: 64 bits, 4 rounds, round keys from pi. */
  public static final FeistelPermutation BUCKETS =
      new FeistelPermutation(32, new int[] {0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344});

  private final int halfBits;
  private final long mask;
  private final int[] roundKeys;

  /**
   * A permutation of {@code [0, 2^(2 * halfBits))} (all 64-bit values, read unsigned, for {@code
   * halfBits} 32).
   *
   * @throws IllegalArgumentException unless {@code 1 <= halfBits <= 32} and there are at least 3
   *     round keys
   */
  public FeistelPermutation(int halfBits, int[] roundKeys) {
    if (halfBits < 1 || halfBits > 32) {
      throw new IllegalArgumentException(
          "a Feistel half must be 1 to 32 bits wide, not " + halfBits);
    }
    if (roundKeys.length < 3) {
      throw new IllegalArgumentException(
          "a Luby-Rackoff permutation needs at least 3 rounds, not " + roundKeys.length);
    }
    this.halfBits = halfBits;
    this.mask = halfBits == 32 ? 0xFFFF_FFFFL : (1L << halfBits) - 1;
    this.roundKeys = roundKeys.clone();
  }

  /** The image of {@code x}; bits of {@code x} above the domain are ignored. */
  public long permute(long x) {
    long left = (x >>> halfBits) & mask;
    long right = x & mask;
    for (int k : roundKeys) {
      long next = left ^ round(right, k);
      left = right;
      right = next;
    }
    return (left << halfBits) | right;
  }

  /** The value {@link #permute} maps to {@code y}. */
  public long invert(long y) {
    long left = (y >>> halfBits) & mask;
    long right = y & mask;
    for (int i = roundKeys.length - 1; i >= 0; i--) {
      long previous = right ^ round(left, roundKeys[i]);
      right = left;
      left = previous;
    }
    return (left << halfBits) | right;
  }

  /**
   * The round function: a multiply-xorshift mix of the half and the round key, cut to the half's
   * width.
   */
  private long round(long half, int key) {
    int x = (int) half ^ key;
    x *= 0x9E3779B1;
    x ^= x >>> 15;
    x *= 0x85EBCA77;
    x ^= x >>> 13;
    x *= 0xC2B2AE3D;
    x ^= x >>> 16;
    return x & mask;
  }

  /**
   * A 64-bit hash of {@code bytes} that every JVM computes alike (64-bit FNV-1a: offset basis
   * {@code 0xcbf29ce484222325}, prime {@code 0x100000001b3}).
   */
  public static long stableHash(byte[] bytes) {
    long h = 0xcbf29ce484222325L;
    for (byte b : bytes) {
      h ^= b & 0xFF;
      h *= 0x100000001b3L;
    }
    return h;
  }
}
