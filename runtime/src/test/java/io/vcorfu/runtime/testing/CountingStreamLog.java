package io.vcorfu.runtime.testing;

import io.vcorfu.client.AppendResult;
import io.vcorfu.client.IssueCondition;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLog;
import io.vcorfu.client.Tails;
import io.vcorfu.protocol.StreamId;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts the requests a runtime makes, over any stream log. Thread-safe. */
public final class CountingStreamLog extends ForwardingStreamLog {
  public final AtomicInteger appends = new AtomicInteger();
  public final AtomicInteger conditionalAppends = new AtomicInteger();
  public final AtomicInteger streamReads = new AtomicInteger();
  public final AtomicInteger tails = new AtomicInteger();
  public final AtomicInteger closes = new AtomicInteger();
  public final AtomicInteger viewCalls = new AtomicInteger();

  /** The lowest stream address any read of each stream started at. */
  public final java.util.Map<StreamId, Long> lowestReadFromByStream =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** How many reads of each stream were made. */
  public final java.util.Map<StreamId, Integer> readsByStream =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** The lowest stream address any stream read started at. */
  public final java.util.concurrent.atomic.AtomicLong lowestStreamReadFrom =
      new java.util.concurrent.atomic.AtomicLong(Long.MAX_VALUE);

  public CountingStreamLog(StreamLog delegate) {
    super(delegate);
  }

  /** Every request counted so far. */
  public int total() {
    return appends.get() + conditionalAppends.get() + streamReads.get() + tails.get();
  }

  @Override
  public CompletableFuture<AppendResult> append(Collection<StreamId> streams, byte[] payload) {
    appends.incrementAndGet();
    return delegate.append(streams, payload);
  }

  @Override
  public CompletableFuture<AppendResult> appendConditional(
      Collection<StreamId> streams, byte[] payload, IssueCondition tx) {
    conditionalAppends.incrementAndGet();
    return delegate.appendConditional(streams, payload, tx);
  }

  @Override
  public CompletableFuture<List<StreamEntry>> readStream(StreamId stream, long from, long to) {
    streamReads.incrementAndGet();
    lowestStreamReadFrom.accumulateAndGet(from, Math::min);
    lowestReadFromByStream.merge(stream, from, Math::min);
    readsByStream.merge(stream, 1, Integer::sum);
    return delegate.readStream(stream, from, to);
  }

  @Override
  public CompletableFuture<Tails> tails(Collection<StreamId> streams) {
    this.tails.incrementAndGet();
    return delegate.tails(streams);
  }

  @Override
  public CompletableFuture<io.vcorfu.client.ViewCallResult> viewCall(
      io.vcorfu.client.ViewCall request) {
    viewCalls.incrementAndGet();
    return delegate.viewCall(request);
  }

  @Override
  public void close() {
    closes.incrementAndGet();
    delegate.close();
  }
}
