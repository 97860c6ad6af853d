package io.vcorfu.logunit;

/**
 * How a node's storage uses its disk: what its segment files take, about how much of that is live
 * (the rest is reclaimed by compaction), and what compaction did since the store opened.
 *
 * @param fileBytes bytes of segment files (sealed and active, the active one with the zeroes its
 *     writer keeps after its records; index files not counted)
 * @param liveBytes estimated live payload bytes in them (errs low, see the storage engine)
 * @param segments segment files, the active one included
 * @param segmentsCompacted sealed segments compacted and deleted since the store opened
 * @param compactionCopiedBytes payload bytes compaction wrote again since the store opened
 * @param compactionReclaimedBytes bytes of the segment files compaction deleted
 * @param compacting the segment being compacted now, -1 when none
 */
public record SpaceReport(
    long fileBytes,
    long liveBytes,
    int segments,
    long segmentsCompacted,
    long compactionCopiedBytes,
    long compactionReclaimedBytes,
    int compacting) {
  /** The report of a store that keeps nothing on disk. */
  public static final SpaceReport NONE = new SpaceReport(0, 0, 0, 0, 0, 0, -1);
}
