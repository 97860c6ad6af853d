package io.vcorfu.server.views;

import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLog;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.testing.ForwardingStreamLog;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts the stream entries a runtime reads, per stream, over any stream log. Thread-safe. */
final class EntryCountingLog extends ForwardingStreamLog {
  private final Map<StreamId, AtomicInteger> entriesRead = new ConcurrentHashMap<>();

  EntryCountingLog(StreamLog delegate) {
    super(delegate);
  }

  int entriesRead(StreamId stream) {
    AtomicInteger n = entriesRead.get(stream);
    return n == null ? 0 : n.get();
  }

  @Override
  public CompletableFuture<List<StreamEntry>> readStream(StreamId stream, long from, long to) {
    return delegate
        .readStream(stream, from, to)
        .thenApply(
            entries -> {
              entriesRead
                  .computeIfAbsent(stream, s -> new AtomicInteger())
                  .addAndGet(entries.size());
              return entries;
            });
  }
}
