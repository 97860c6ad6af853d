package io.vcorfu.collections;

/**
 * A {@link CSMRMap} was opened with a bucket count other than the one it was created with. The
 * stored count is what every client must use; open the map without a count to adopt it.
 */
public final class BucketCountMismatchException extends IllegalArgumentException {
  private final String mapName;
  private final int storedBuckets;
  private final int requestedBuckets;

  public BucketCountMismatchException(String mapName, int storedBuckets, int requestedBuckets) {
    super(
        "map "
            + mapName
            + " was created with "
            + storedBuckets
            + " buckets, but was opened with "
            + requestedBuckets
            + "; open it with "
            + storedBuckets
            + " buckets, or without a bucket count to use the stored one");
    this.mapName = mapName;
    this.storedBuckets = storedBuckets;
    this.requestedBuckets = requestedBuckets;
  }

  public String mapName() {
    return mapName;
  }

  /** The bucket count the map was created with. */
  public int storedBuckets() {
    return storedBuckets;
  }

  /** The bucket count the failed open asked for. */
  public int requestedBuckets() {
    return requestedBuckets;
  }
}
