package io.vcorfu.server.cluster;

import io.vcorfu.protocol.proto.RebuildProgress;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The progress accounting of a {@link Rebuilder}: what the copies of one join did so far, against
 * one layout, and the {@link RebuildProgress} made of it. {@code copied} and {@code bytes} count
 * every slot this join installed, over all its attempts and layouts; {@code held} counts the slots
 * the current attempt found already here, so slots an earlier attempt of the same join copied
 * ({@code copiedBefore}) are taken out of it to report what the node held from before.
 */
final class RebuildRun {
  final long since;
  final long epoch;
  final long startedNanos = System.nanoTime();
  final AtomicLong copied = new AtomicLong();
  final AtomicLong bytes = new AtomicLong();
  final AtomicLong held = new AtomicLong();
  volatile long copiedBefore;
  long carriedCopied;
  long carriedBytes;
  final AtomicLong left = new AtomicLong();
  final RebuildPacer pacer;
  volatile boolean done;
  volatile boolean stopped;
  volatile String lastError = "";

  RebuildRun(long since, long epoch, RebuildPacer pacer) {
    this.since = since;
    this.epoch = epoch;
    this.pacer = pacer;
  }

  /** How the copy goes now. */
  RebuildProgress progress() {
    double seconds = Math.max(1e-3, (System.nanoTime() - startedNanos) / 1e9);
    return RebuildProgress.newBuilder()
        .setSinceEpoch(since)
        .setEpoch(epoch)
        .setDone(done)
        .setEntriesCopied(copied.get())
        .setBytesCopied(bytes.get())
        .setEntriesHeld(Math.max(0, held.get() - copiedBefore))
        .setEntriesLeft(Math.max(0, left.get()))
        .setBytesPerSecond((bytes.get() - carriedBytes) / seconds)
        .setSecondsLeft(secondsLeft(seconds))
        .setLastError(lastError)
        .setRateLimitBytesPerSecond(pacer.bytesPerSecond())
        .setForegroundP99Micros(pacer.lastP99Micros())
        .build();
  }

  private double secondsLeft(double seconds) {
    if (done) {
      return 0;
    }
    double examinedPerSecond = (copied.get() - carriedCopied + held.get()) / seconds;
    return examinedPerSecond <= 0 ? -1 : Math.max(0, left.get()) / examinedPerSecond;
  }
}
