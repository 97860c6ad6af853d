package io.vcorfu.logunit;

/**
 * Sees each step of compaction: called on the compacting thread after each batch of records was
 * written again (before it is forced), and once the segment is gone or left. Tests take copies of
 * the data directory here to stand for a crash at that step.
 */
@FunctionalInterface
public interface CompactionObserver {
  /** Compaction of {@code segment} finished step {@code step} (0, 1, ...). */
  void stepped(int segment, int step);

  /** Sees nothing. */
  CompactionObserver NONE = (segment, step) -> {};
}
