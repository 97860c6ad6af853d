package io.vcorfu.logunit.internal;

/**
 * What a durable engine does once it is idle: after {@link #IDLE_CHECKS} background checks in a row
 * found nothing written (no entry, trim or commit), it settles once, until something is written
 * again: it seals the active segment when at most half of it is live, and compacts the sealed
 * segments below {@link #SETTLE_BELOW} live. A store at rest thus holds about what is live, not
 * what its last seconds of writes left behind; a busy one is not touched by this. Used by the
 * engine's compaction thread only.
 */
final class IdleSettle {
  /** Checks in a row that found nothing written before the engine counts as idle. */
  static final int IDLE_CHECKS = 3;

  /**
   * What an idle engine compacts below: segments up to this share live are written again, so that
   * at rest the files come back near what is live, at most four bytes copied per byte freed.
   */
  static final double SETTLE_BELOW = 0.8;

  /** An active segment shorter than this is left as it is when the engine settles. */
  static final long SETTLE_MIN_ACTIVE_BYTES = 1 << 20;

  private long positionSeen = -1;
  private int idleChecks;
  private boolean settled;

  /** Called after every background compaction pass of {@code engine}. */
  void check(StorageEngine engine) throws InterruptedException {
    long before = engine.writePosition();
    if (before != positionSeen) {
      positionSeen = before;
      idleChecks = 0;
      settled = false;
      return;
    }
    if (settled || ++idleChecks < IDLE_CHECKS) {
      return;
    }
    settled = true;
    engine.sealIfMostlyDead(SETTLE_MIN_ACTIVE_BYTES);
    engine.compact(
        Math.max(SETTLE_BELOW, engine.options().compactBelow()), System.nanoTime(), false);
    positionSeen = engine.writePosition(); // what the settling wrote is not activity
  }
}
