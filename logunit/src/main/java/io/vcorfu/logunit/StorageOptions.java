package io.vcorfu.logunit;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/** How a replica stores its records. Immutable; build with {@link #builder()}. */
public final class StorageOptions {
  /**
   * Segments of 16 MiB: small enough that the space compaction reclaims comes back in steps of a
   * few seconds of writes and the active segment (never compacted) holds little garbage, large
   * enough that a node holds few files (recovery replays one index file per segment).
   */
  public static final long DEFAULT_SEGMENT_SIZE = 16L << 20;

  public static final int DEFAULT_MAX_ENTRY_SIZE = 4 << 20;

  /**
   * A sealed segment is compacted once its live bytes fall below this share of its length: at most
   * about half of the space of sealed segments holds dead records, and each live byte is copied
   * about once per halving of what is live around it.
   */
  public static final double DEFAULT_COMPACT_BELOW = 0.5;

  /**
   * Compaction copies at most this many payload bytes per second: a small share of what one disk
   * writes, so the foreground keeps its throughput.
   */
  public static final long DEFAULT_COMPACTION_BYTES_PER_SECOND = 16L << 20;

  /** Segments are read whole during recovery, so they are capped well below 2 GiB. */
  public static final long MAX_SEGMENT_SIZE = 1L << 30;

  private final StorageMode mode;
  private final Path directory;
  private final FsyncPolicy fsyncPolicy;
  private final Duration fsyncInterval;
  private final long segmentSize;
  private final int maxEntrySize;
  private final DirectorySync directorySync;
  private final ForceObserver forceObserver;
  private final Supplier<Executor> completionHome;
  private final double compactBelow;
  private final long compactionBytesPerSecond;
  private final CompactionObserver compactionObserver;

  private StorageOptions(Builder b) {
    this.mode = b.mode;
    this.directory = b.directory;
    this.fsyncPolicy = b.fsyncPolicy;
    this.fsyncInterval = b.fsyncInterval;
    this.segmentSize = b.segmentSize;
    this.maxEntrySize = b.maxEntrySize;
    this.directorySync = b.directorySync;
    this.forceObserver = b.forceObserver;
    this.completionHome = b.completionHome;
    this.compactBelow = b.compactBelow;
    this.compactionBytesPerSecond = b.compactionBytesPerSecond;
    this.compactionObserver = b.compactionObserver;
  }

  /** Sees each step of compaction ({@link CompactionObserver#NONE} unless replaced). */
  public CompactionObserver compactionObserver() {
    return compactionObserver;
  }

  /**
   * Sealed segments whose live bytes fall below this share of their length are compacted in the
   * background (durable mode); 0 turns background compaction off.
   */
  public double compactBelow() {
    return compactBelow;
  }

  /** The most payload bytes per second compaction copies; 0 for no limit. */
  public long compactionBytesPerSecond() {
    return compactionBytesPerSecond;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** In-memory storage with default limits. */
  public static StorageOptions memory() {
    return builder().mode(StorageMode.MEMORY).build();
  }

  /** Durable storage in {@code directory} with group commit and default limits. */
  public static StorageOptions durable(Path directory) {
    return builder().mode(StorageMode.DURABLE).directory(directory).build();
  }

  public StorageMode mode() {
    return mode;
  }

  /** The data directory (durable mode only; null in memory mode). */
  public Path directory() {
    return directory;
  }

  public FsyncPolicy fsyncPolicy() {
    return fsyncPolicy;
  }

  /** How often {@link FsyncPolicy#INTERVAL} forces the active segment. */
  public Duration fsyncInterval() {
    return fsyncInterval;
  }

  /** A segment is sealed and a new one started once appending would pass this size. */
  public long segmentSize() {
    return segmentSize;
  }

  /** Largest serialized entry accepted; larger ones fail with TooLargeException. */
  public int maxEntrySize() {
    return maxEntrySize;
  }

  /** How directory entries are made durable ({@link DirectorySync#FSYNC} unless replaced). */
  public DirectorySync directorySync() {
    return directorySync;
  }

  /** Sees every force of the active segment ({@link ForceObserver#NONE} unless replaced). */
  public ForceObserver forceObserver() {
    return forceObserver;
  }

  /**
   * Under group commit ({@link FsyncPolicy#ALWAYS}): the executor on which the answer to a write
   * asked for on the calling thread is completed, given that thread, or null for the storage's own
   * completion thread (the default). A node gives its network threads their own event loops, so a
   * write's answer runs where its response is sent: one thread hand-off instead of two. What is
   * chained on such a write then runs on that executor and must not block.
   */
  public Supplier<Executor> completionHome() {
    return completionHome;
  }

  public Builder toBuilder() {
    return new Builder()
        .mode(mode)
        .directory(directory)
        .fsyncPolicy(fsyncPolicy)
        .fsyncInterval(fsyncInterval)
        .segmentSize(segmentSize)
        .maxEntrySize(maxEntrySize)
        .directorySync(directorySync)
        .forceObserver(forceObserver)
        .completionHome(completionHome)
        .compactBelow(compactBelow)
        .compactionBytesPerSecond(compactionBytesPerSecond)
        .compactionObserver(compactionObserver);
  }

  @Override
  public String toString() {
    return "StorageOptions{mode="
        + mode
        + ", directory="
        + directory
        + ", fsync="
        + fsyncPolicy
        + ", fsyncInterval="
        + fsyncInterval
        + ", segmentSize="
        + segmentSize
        + ", maxEntrySize="
        + maxEntrySize
        + ", compactBelow="
        + compactBelow
        + "}";
  }

  /**
   * Builder; defaults: MEMORY, ALWAYS, 10 ms interval, 16 MiB segments, 4 MiB entries, segments
   * compacted below half live at up to 16 MiB/s.
   */
  public static final class Builder {
    private StorageMode mode = StorageMode.MEMORY;
    private Path directory;
    private FsyncPolicy fsyncPolicy = FsyncPolicy.ALWAYS;
    private Duration fsyncInterval = Duration.ofMillis(10);
    private long segmentSize = DEFAULT_SEGMENT_SIZE;
    private int maxEntrySize = DEFAULT_MAX_ENTRY_SIZE;
    private DirectorySync directorySync = DirectorySync.FSYNC;
    private ForceObserver forceObserver = ForceObserver.NONE;
    private Supplier<Executor> completionHome = () -> null;
    private double compactBelow = DEFAULT_COMPACT_BELOW;
    private long compactionBytesPerSecond = DEFAULT_COMPACTION_BYTES_PER_SECOND;
    private CompactionObserver compactionObserver = CompactionObserver.NONE;

    private Builder() {}

    /** Has {@code observer} see each step of compaction (tests). */
    public Builder compactionObserver(CompactionObserver observer) {
      this.compactionObserver = Objects.requireNonNull(observer, "observer");
      return this;
    }

    /** See {@link StorageOptions#compactBelow()}; 0 turns background compaction off. */
    public Builder compactBelow(double share) {
      this.compactBelow = share;
      return this;
    }

    /** See {@link StorageOptions#compactionBytesPerSecond()}. */
    public Builder compactionBytesPerSecond(long bytes) {
      this.compactionBytesPerSecond = bytes;
      return this;
    }

    public Builder mode(StorageMode mode) {
      this.mode = Objects.requireNonNull(mode, "mode");
      return this;
    }

    public Builder directory(Path directory) {
      this.directory = directory;
      return this;
    }

    public Builder fsyncPolicy(FsyncPolicy policy) {
      this.fsyncPolicy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    public Builder fsyncInterval(Duration interval) {
      this.fsyncInterval = Objects.requireNonNull(interval, "interval");
      return this;
    }

    public Builder segmentSize(long bytes) {
      this.segmentSize = bytes;
      return this;
    }

    public Builder maxEntrySize(int bytes) {
      this.maxEntrySize = bytes;
      return this;
    }

    /** Replaces how the data directory's entries are forced (tests observe it this way). */
    public Builder directorySync(DirectorySync sync) {
      this.directorySync = Objects.requireNonNull(sync, "sync");
      return this;
    }

    /** Has {@code observer} see every force of the active segment (fsync latency, group size). */
    public Builder forceObserver(ForceObserver observer) {
      this.forceObserver = Objects.requireNonNull(observer, "observer");
      return this;
    }

    /** See {@link StorageOptions#completionHome()}. */
    public Builder completionHome(Supplier<Executor> home) {
      this.completionHome = Objects.requireNonNull(home, "home");
      return this;
    }

    public StorageOptions build() {
      if (mode == StorageMode.DURABLE && directory == null) {
        throw new IllegalArgumentException("durable storage needs a data directory");
      }
      if (segmentSize < 4096 || segmentSize > MAX_SEGMENT_SIZE) {
        throw new IllegalArgumentException(
            "segment size must be between 4096 and "
                + MAX_SEGMENT_SIZE
                + " bytes, not "
                + segmentSize);
      }
      if (maxEntrySize < 1) {
        throw new IllegalArgumentException(
            "the maximum entry size must be positive, not " + maxEntrySize);
      }
      if (!(compactBelow >= 0 && compactBelow < 1)) {
        throw new IllegalArgumentException(
            "compaction applies to segments below a share of live bytes in [0, 1), not "
                + compactBelow);
      }
      if (compactionBytesPerSecond < 0) {
        throw new IllegalArgumentException(
            "the compaction rate cannot be negative, not " + compactionBytesPerSecond);
      }
      if (fsyncInterval.isNegative() || fsyncInterval.isZero()) {
        throw new IllegalArgumentException(
            "the fsync interval must be positive, not " + fsyncInterval);
      }
      return new StorageOptions(this);
    }
  }
}
