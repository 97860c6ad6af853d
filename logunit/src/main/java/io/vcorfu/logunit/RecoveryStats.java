package io.vcorfu.logunit;

/**
 * What opening a durable replica found on disk.
 *
 * @param segmentsFromIndex sealed segments restored from their index file without reading the data
 * @param segmentsScanned segments whose records were read and checksummed (always includes the
 *     active one)
 * @param tornBytesTruncated bytes cut from the end of the last segment (an interrupted write)
 * @param segmentsDeleted segments deleted on open because nothing in them was live any more
 */
public record RecoveryStats(
    int segmentsFromIndex, int segmentsScanned, long tornBytesTruncated, int segmentsDeleted) {

  /** Stats of a replica that found nothing to recover (memory mode or an empty directory). */
  public static final RecoveryStats NONE = new RecoveryStats(0, 0, 0, 0);
}
