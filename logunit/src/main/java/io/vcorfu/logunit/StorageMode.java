package io.vcorfu.logunit;

/** Where a replica keeps its records. */
public enum StorageMode {
  /** Maps in memory; everything is lost when the process ends. */
  MEMORY,
  /** Append-only, checksummed segment files in a data directory, recovered on open. */
  DURABLE
}
