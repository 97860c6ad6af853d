package io.vcorfu.runtime.testing;

import com.google.protobuf.ByteString;
import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ConflictKey;
import io.vcorfu.client.GlobalEntry;
import io.vcorfu.client.IssueCondition;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLog;
import io.vcorfu.client.Tails;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TokenRefusedException;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.protocol.VCorfuException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A test-only stream store in memory: a global list of entries, per-stream lists, and conditional
 * issuance over per-stream and per-(stream, key) last-write addresses. Several clients ({@link
 * #client()}) share one store, like several runtimes sharing one cluster. Thread-safe: one lock
 * guards everything, so appends are atomic across all their streams.
 *
 * <p>Conflict rules: a whole-object read conflicts with any later write to the stream; a keyed read
 * conflicts with a later write of the same key or a later whole-object write. A plain append is a
 * whole-object write to each of its streams; a conditional append writes the keys of its write set
 * (a stream it writes without a key in the write set counts as written whole).
 */
public final class InMemoryStreamLog {
  private record Key(StreamId stream, ByteString key) {}

  private final Object lock = new Object();
  // All guarded by lock.
  private final List<GlobalEntry> global = new ArrayList<>();
  private final Map<StreamId, List<StreamEntry>> streams = new HashMap<>();
  private final Map<StreamId, Long> lastAnyWrite = new HashMap<>();
  private final Map<StreamId, Long> lastWholeWrite = new HashMap<>();
  private final Map<Key, Long> lastKeyWrite = new HashMap<>();
  private final Map<StreamId, Long> trimMarks = new HashMap<>();

  /** Pins by (stream, name): the position no trim of the stream passes. */
  private final Map<List<StreamId>, Long> pins = new HashMap<>();

  /** A new client of this store; closing it does not affect the store or other clients. */
  public StreamLog client() {
    return new Client();
  }

  private AppendResult doAppend(Collection<StreamId> targets, byte[] payload, IssueCondition tx) {
    synchronized (lock) {
      if (tx != null) {
        for (ConflictKey ck : tx.readSet()) {
          StreamId s = ck.stream();
          long last =
              ck.key().length == 0
                  ? lastAnyWrite.getOrDefault(s, -1L)
                  : Math.max(
                      lastWholeWrite.getOrDefault(s, -1L),
                      lastKeyWrite.getOrDefault(new Key(s, ByteString.copyFrom(ck.key())), -1L));
          if (last > tx.snapshot()) {
            throw new TokenRefusedException(s, ck.key(), last, false);
          }
        }
      }
      long address = global.size();
      Map<StreamId, Long> slots = new LinkedHashMap<>();
      for (StreamId s : new LinkedHashSet<>(targets)) {
        List<StreamEntry> list = streams.computeIfAbsent(s, k -> new ArrayList<>());
        slots.put(s, (long) list.size());
        list.add(new StreamEntry(s, list.size(), address, false, payload.clone()));
        lastAnyWrite.put(s, address);
      }
      global.add(new GlobalEntry(address, false, Map.copyOf(slots), payload.clone()));
      Map<StreamId, Boolean> keyed = new HashMap<>();
      if (tx != null) {
        for (ConflictKey ck : tx.writeSet()) {
          StreamId s = ck.stream();
          if (ck.key().length == 0) {
            lastWholeWrite.put(s, address);
          } else {
            lastKeyWrite.put(new Key(s, ByteString.copyFrom(ck.key())), address);
          }
          keyed.put(s, Boolean.TRUE);
        }
      }
      for (StreamId s : slots.keySet()) {
        if (!keyed.containsKey(s)) {
          lastWholeWrite.put(s, address);
        }
      }
      return new AppendResult(address, Map.copyOf(slots));
    }
  }

  private List<StreamEntry> doReadStream(StreamId stream, long from, long to) {
    synchronized (lock) {
      long mark = trimMarks.getOrDefault(stream, 0L);
      if (from < mark) {
        throw new TrimmedException(mark, stream);
      }
      List<StreamEntry> list = streams.getOrDefault(stream, List.of());
      List<StreamEntry> out = new ArrayList<>();
      for (long a = Math.max(0, from); a <= to && a < list.size(); a++) {
        out.add(list.get((int) a));
      }
      return out;
    }
  }

  private List<GlobalEntry> doReadGlobal(long from, long to) {
    synchronized (lock) {
      List<GlobalEntry> out = new ArrayList<>();
      for (long a = Math.max(0, from); a <= to && a < global.size(); a++) {
        out.add(global.get((int) a));
      }
      return out;
    }
  }

  private Tails doTails(Collection<StreamId> wanted) {
    synchronized (lock) {
      Map<StreamId, Long> tails = new HashMap<>();
      Map<StreamId, Long> lastGlobal = new HashMap<>();
      for (StreamId s : wanted) {
        tails.put(s, (long) streams.getOrDefault(s, List.of()).size() - 1);
        lastGlobal.put(s, lastAnyWrite.getOrDefault(s, -1L));
      }
      return new Tails(global.size() - 1, tails, lastGlobal);
    }
  }

  private long doTrim(StreamId stream, long before) {
    synchronized (lock) {
      for (Map.Entry<List<StreamId>, Long> p : pins.entrySet()) {
        if (p.getKey().get(0).equals(stream)) {
          before = Math.min(before, p.getValue());
        }
      }
      long mark = Math.max(trimMarks.getOrDefault(stream, 0L), before);
      trimMarks.put(stream, mark);
      return mark;
    }
  }

  private final class Client implements StreamLog {
    private volatile boolean closed;

    private <T> CompletableFuture<T> run(java.util.function.Supplier<T> op) {
      if (closed) {
        return CompletableFuture.failedFuture(
            new VCorfuException("this stream-log client is closed"));
      }
      try {
        return CompletableFuture.completedFuture(op.get());
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
    }

    @Override
    public CompletableFuture<AppendResult> append(Collection<StreamId> s, byte[] payload) {
      return run(() -> doAppend(s, payload, null));
    }

    @Override
    public CompletableFuture<AppendResult> appendConditional(
        Collection<StreamId> s, byte[] payload, IssueCondition tx) {
      return run(() -> doAppend(s, payload, tx));
    }

    @Override
    public CompletableFuture<List<StreamEntry>> readStream(StreamId stream, long from, long to) {
      return run(() -> doReadStream(stream, from, to));
    }

    @Override
    public CompletableFuture<GlobalEntry> readGlobal(long address) {
      return run(
          () -> {
            List<GlobalEntry> e = doReadGlobal(address, address);
            if (e.isEmpty()) {
              throw new VCorfuException("nothing is written at global address " + address);
            }
            return e.get(0);
          });
    }

    /** Appends here are never left incomplete, so every written address is already decided. */
    @Override
    public CompletableFuture<GlobalEntry> fill(long address) {
      return readGlobal(address);
    }

    @Override
    public CompletableFuture<List<GlobalEntry>> readGlobalRange(long from, long to) {
      return run(() -> doReadGlobal(from, to));
    }

    @Override
    public CompletableFuture<Tails> tails(Collection<StreamId> s) {
      return run(() -> doTails(s));
    }

    @Override
    public CompletableFuture<Long> trimStream(StreamId stream, long before) {
      return run(() -> doTrim(stream, before));
    }

    @Override
    public CompletableFuture<Long> pinStream(StreamId stream, StreamId name) {
      return run(
          () -> {
            synchronized (lock) {
              long at = trimMarks.getOrDefault(stream, 0L);
              pins.put(List.of(stream, name), at);
              return at;
            }
          });
    }

    @Override
    public CompletableFuture<Void> unpinStream(StreamId stream, StreamId name) {
      return run(
          () -> {
            synchronized (lock) {
              pins.remove(List.of(stream, name));
              return null;
            }
          });
    }

    @Override
    public void close() {
      closed = true;
    }
  }
}
