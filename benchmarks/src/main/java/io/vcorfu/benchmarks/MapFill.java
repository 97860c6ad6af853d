package io.vcorfu.benchmarks;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Writes keyed values into a benchmark map with {@code fastPut} from several threads, and names and
 * checks those keys and values. A value is {@code valueSize} bytes that start with the key index,
 * so a read can tell whether it got the value of the key it asked for. Thread-safe; {@link
 * #close()} stops the writer threads.
 */
final class MapFill implements AutoCloseable {
  private final int threads;
  private final int valueSize;
  private final ExecutorService pool;

  MapFill(int threads, int valueSize) {
    if (threads < 1 || valueSize < Long.BYTES) {
      throw new IllegalArgumentException(
          "a fill needs at least one thread and values of at least " + Long.BYTES + " bytes");
    }
    this.threads = threads;
    this.valueSize = valueSize;
    this.pool =
        Executors.newFixedThreadPool(
            threads,
            r -> {
              Thread t = new Thread(r, "map-fill");
              t.setDaemon(true);
              return t;
            });
  }

  static String key(long index) {
    return "k" + index;
  }

  /** A value for key {@code index}: the index, then filler bytes drawn from {@code salt}. */
  byte[] value(long index, long salt) {
    byte[] v = new byte[valueSize];
    new SplittableRandom(salt).nextBytes(v);
    ByteBuffer.wrap(v).putLong(index);
    return v;
  }

  /** The key index a value written by {@link #value} was written for, or -1 if it cannot be one. */
  long keyOf(byte[] value) {
    if (value == null || value.length != valueSize) {
      return -1;
    }
    return ByteBuffer.wrap(value).getLong();
  }

  /** Whether {@code got}, read for key {@code index}, is right given the keys written so far. */
  boolean readIsRight(long index, byte[] got, Set<Long> written) {
    return got == null ? !written.contains(index) : keyOf(got) == index && written.contains(index);
  }

  /**
   * Writes {@code count} values with {@code fastPut}, split over the threads; thread {@code t}
   * draws its keys from {@code dist} seeded with {@code seed + t}. Adds every key written to {@code
   * written}. Returns when every write has returned; the first failure is rethrown.
   */
  void fill(
      MapKind.Opened map,
      long count,
      KeyGenerator.Distribution dist,
      long keys,
      long seed,
      Set<Long> written)
      throws InterruptedException {
    List<Future<?>> parts = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      long share = count / threads + (t < count % threads ? 1 : 0);
      long threadSeed = seed + t;
      if (share == 0) {
        continue;
      }
      parts.add(
          pool.submit(
              () -> {
                KeyGenerator gen = dist.generator(keys, threadSeed);
                SplittableRandom salts = new SplittableRandom(threadSeed);
                for (long i = 0; i < share; i++) {
                  long k = gen.next();
                  map.fastPut().put(key(k), value(k, salts.nextLong()));
                  written.add(k);
                }
                return null;
              }));
    }
    for (Future<?> f : parts) {
      try {
        f.get();
      } catch (ExecutionException e) {
        for (Future<?> other : parts) {
          other.cancel(true);
        }
        throw new IllegalStateException("filling the map failed: " + e.getCause(), e.getCause());
      }
    }
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
