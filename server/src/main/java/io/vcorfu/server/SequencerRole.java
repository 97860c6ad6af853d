package io.vcorfu.server;

import io.vcorfu.sequencer.ReadLeases;
import io.vcorfu.sequencer.SequencerBootstrap;
import io.vcorfu.sequencer.SequencerService;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The sequencer role of a node: the sequencer, its read leases and its bootstrap, and the moment
 * before which it reveals nothing.
 *
 * <p>Invariant: no token, tail or lease is answered before {@link #ready()} completes, which is
 * once the bootstrap has rebuilt the tails, every read lease that may have been granted before this
 * role took over has run out, and {@code notBefore} has passed (in a cluster: the layout lease of
 * every node of older layouts, see {@code docs/cluster.md}). Thread-safe.
 */
final class SequencerRole implements AutoCloseable {
  private final SequencerService sequencer;
  private final ReadLeases leases;
  private final SequencerBootstrap bootstrap;
  private final CompletableFuture<Void> ready;
  private final WriterTable writers = new WriterTable();
  private final SnapshotRegistry snapshots;

  /** A role whose sequencer is rebuilt by {@code bootstrap}. */
  SequencerRole(
      SequencerService sequencer,
      ReadLeases leases,
      SequencerBootstrap bootstrap,
      long notBeforeNanos) {
    this(sequencer, leases, bootstrap, bootstrap.done(), notBeforeNanos, new SnapshotRegistry());
  }

  /**
   * A role whose sequencer is (or will be, once {@code booted} completes) ready without a
   * bootstrap: a new cluster's, or one kept across a layout change.
   */
  SequencerRole(
      SequencerService sequencer,
      ReadLeases leases,
      CompletableFuture<Void> booted,
      long notBeforeNanos) {
    this(sequencer, leases, null, booted, notBeforeNanos, new SnapshotRegistry());
  }

  /**
   * The role of a sequencer that stays the sequencer across a layout change: its sequencer, read
   * leases and snapshot registrations go on (every client registers with this node all along, so
   * what it knows of their snapshots stays complete; a fresh registry would hold every trim back
   * for a lease after each change).
   */
  SequencerRole(SequencerRole staying, CompletableFuture<Void> booted) {
    this(staying.sequencer, staying.leases, null, booted, 0, staying.snapshots);
  }

  /**
   * @param bootstrap null when the sequencer needs none
   * @param notBeforeNanos {@link System#nanoTime()} before which nothing is revealed (0: no wait)
   */
  private SequencerRole(
      SequencerService sequencer,
      ReadLeases leases,
      SequencerBootstrap bootstrap,
      CompletableFuture<Void> booted,
      long notBeforeNanos,
      SnapshotRegistry snapshots) {
    this.snapshots = snapshots;
    this.sequencer = sequencer;
    this.leases = leases;
    this.bootstrap = bootstrap;
    long waitNanos = notBeforeNanos == 0 ? 0 : notBeforeNanos - System.nanoTime();
    CompletableFuture<Void> waited =
        waitNanos <= 0
            ? booted
            : booted.thenCompose(
                v ->
                    CompletableFuture.runAsync(
                        () -> {},
                        CompletableFuture.delayedExecutor(
                            Math.max(0, notBeforeNanos - System.nanoTime()),
                            TimeUnit.NANOSECONDS)));
    this.ready = leases == null ? waited : waited.thenCompose(v -> leases.serving());
  }

  SequencerService sequencer() {
    return sequencer;
  }

  ReadLeases leases() {
    return leases;
  }

  SequencerBootstrap bootstrap() {
    return bootstrap;
  }

  /** The sequenced writes this role took, by writer and number (see {@link SequencedWrites}). */
  /** The snapshots clients hold, registered with this sequencer. */
  SnapshotRegistry snapshots() {
    return snapshots;
  }

  WriterTable writers() {
    return writers;
  }

  /** Completes once this role may reveal tokens (see the class comment). */
  CompletableFuture<Void> ready() {
    return ready;
  }

  /** Starts the bootstrap, if any. */
  void start() {
    if (bootstrap != null) {
      bootstrap.start();
    }
  }

  /** Stops the bootstrap, the sequencer and its read leases. */
  @Override
  public void close() {
    if (bootstrap != null) {
      bootstrap.close();
    }
    sequencer.close();
    if (leases != null) {
      leases.close();
    }
  }
}
