package io.vcorfu.runtime.testing;

import io.vcorfu.client.AppendResult;
import io.vcorfu.client.GlobalEntry;
import io.vcorfu.client.IssueCondition;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLog;
import io.vcorfu.client.Tails;
import io.vcorfu.client.ViewCall;
import io.vcorfu.client.ViewCallResult;
import io.vcorfu.protocol.StreamId;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A stream log that passes every call to another; tests override the calls they observe or delay.
 */
public abstract class ForwardingStreamLog implements StreamLog {
  protected final StreamLog delegate;

  protected ForwardingStreamLog(StreamLog delegate) {
    this.delegate = delegate;
  }

  @Override
  public CompletableFuture<AppendResult> append(Collection<StreamId> streams, byte[] payload) {
    return delegate.append(streams, payload);
  }

  @Override
  public CompletableFuture<AppendResult> appendConditional(
      Collection<StreamId> streams, byte[] payload, IssueCondition tx) {
    return delegate.appendConditional(streams, payload, tx);
  }

  @Override
  public CompletableFuture<List<StreamEntry>> readStream(StreamId stream, long from, long to) {
    return delegate.readStream(stream, from, to);
  }

  @Override
  public CompletableFuture<GlobalEntry> readGlobal(long address) {
    return delegate.readGlobal(address);
  }

  @Override
  public CompletableFuture<GlobalEntry> fill(long address) {
    return delegate.fill(address);
  }

  @Override
  public CompletableFuture<List<GlobalEntry>> readGlobalRange(long from, long to) {
    return delegate.readGlobalRange(from, to);
  }

  @Override
  public CompletableFuture<Tails> tails(Collection<StreamId> streams) {
    return delegate.tails(streams);
  }

  @Override
  public long epoch() {
    return delegate.epoch();
  }

  @Override
  public CompletableFuture<Long> trimStream(StreamId stream, long before) {
    return delegate.trimStream(stream, before);
  }

  @Override
  public CompletableFuture<Long> pinStream(StreamId stream, StreamId name) {
    return delegate.pinStream(stream, name);
  }

  @Override
  public CompletableFuture<Void> unpinStream(StreamId stream, StreamId name) {
    return delegate.unpinStream(stream, name);
  }

  @Override
  public CompletableFuture<io.vcorfu.client.SnapshotFloor> registerSnapshots(
      long oldest, int leaseMs) {
    return delegate.registerSnapshots(oldest, leaseMs);
  }

  @Override
  public CompletableFuture<ViewCallResult> viewCall(ViewCall request) {
    return delegate.viewCall(request);
  }

  @Override
  public void close() {
    delegate.close();
  }
}
