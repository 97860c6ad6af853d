package io.vcorfu.server.views;

import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.TxResolution;
import io.vcorfu.protocol.proto.ViewCallRequest;
import io.vcorfu.protocol.proto.ViewCallResponse;
import io.vcorfu.runtime.stream.AppendResult;
import io.vcorfu.runtime.stream.GlobalEntry;
import io.vcorfu.runtime.stream.StreamEntry;
import io.vcorfu.runtime.stream.StreamLog;
import io.vcorfu.runtime.stream.Tails;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts the stream entries a runtime reads, per stream, over any stream log. Thread-safe. */
final class EntryCountingLog implements StreamLog {
  private final StreamLog delegate;
  private final Map<StreamId, AtomicInteger> entriesRead = new ConcurrentHashMap<>();

  EntryCountingLog(StreamLog delegate) {
    this.delegate = delegate;
  }

  int entriesRead(StreamId stream) {
    AtomicInteger n = entriesRead.get(stream);
    return n == null ? 0 : n.get();
  }

  @Override
  public CompletableFuture<List<StreamEntry>> readStream(StreamId stream, long from, long to) {
    return delegate.readStream(stream, from, to).thenApply(entries -> {
      entriesRead.computeIfAbsent(stream, s -> new AtomicInteger()).addAndGet(entries.size());
      return entries;
    });
  }

  @Override
  public CompletableFuture<AppendResult> append(Collection<StreamId> streams, byte[] payload) {
    return delegate.append(streams, payload);
  }

  @Override
  public CompletableFuture<AppendResult> appendConditional(Collection<StreamId> streams, byte[] payload, TxResolution tx) {
    return delegate.appendConditional(streams, payload, tx);
  }

  @Override
  public CompletableFuture<GlobalEntry> readGlobal(long address) {
    return delegate.readGlobal(address);
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
  public CompletableFuture<Long> trimStream(StreamId stream, long before) {
    return delegate.trimStream(stream, before);
  }

  @Override
  public CompletableFuture<ViewCallResponse> viewCall(ViewCallRequest request) {
    return delegate.viewCall(request);
  }

  @Override
  public void close() {
    delegate.close();
  }
}
