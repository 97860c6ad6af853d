package io.vcorfu.logunit.internal;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.LoggerFactory;

/**
 * The thread that compacts a durable engine in the background: every {@link
 * #COMPACTION_CHECK_MILLIS} it compacts the sealed segments below the configured share of live
 * bytes, then settles the files once the engine is idle ({@link IdleSettle}).
 */
final class BackgroundCompaction {
  /** How often the background compaction looks for segments to compact. */
  static final long COMPACTION_CHECK_MILLIS = 1_000;

  /** Settles the files once the engine is idle; used by the compaction thread only. */
  private final IdleSettle idleSettle = new IdleSettle();

  private final ScheduledExecutorService compaction;

  /** Starts compacting {@code engine} in the background. */
  BackgroundCompaction(StorageEngine engine) {
    compaction =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "compaction-" + engine.options().directory().getFileName());
              t.setDaemon(true);
              return t;
            });
    compaction.scheduleWithFixedDelay(
        () -> {
          try {
            engine.compact(engine.options().compactBelow(), System.nanoTime(), true);
            idleSettle.check(engine);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          } catch (RuntimeException e) {
            if (!engine.isClosed()) {
              LoggerFactory.getLogger(StorageEngine.class)
                  .warn(
                      "Compaction of {} failed; it is tried again",
                      engine.options().directory(),
                      e);
            }
          }
        },
        COMPACTION_CHECK_MILLIS,
        COMPACTION_CHECK_MILLIS,
        TimeUnit.MILLISECONDS);
  }

  /** Stops the thread, waiting up to 10 s for a pass under way to end. */
  void stop() {
    compaction.shutdownNow();
    try {
      compaction.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
