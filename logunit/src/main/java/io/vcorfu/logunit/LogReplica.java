package io.vcorfu.logunit;

import static io.vcorfu.logunit.internal.EntryRecords.key;

import io.vcorfu.logunit.internal.EntryRecords;
import io.vcorfu.logunit.internal.HoleFill;
import io.vcorfu.logunit.internal.IndexedRecord;
import io.vcorfu.logunit.internal.KeptHoles;
import io.vcorfu.logunit.internal.PlannedRead;
import io.vcorfu.logunit.internal.ReadPlanning;
import io.vcorfu.logunit.internal.StorageEngine;
import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.OverwrittenException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimBounds;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.protocol.VCorfuException;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogCommitRequest;
import io.vcorfu.protocol.proto.LogCommitResponse;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.LogFillRequest;
import io.vcorfu.protocol.proto.LogFillResponse;
import io.vcorfu.protocol.proto.LogReadRequest;
import io.vcorfu.protocol.proto.LogReadResponse;
import io.vcorfu.protocol.proto.LogStripe;
import io.vcorfu.protocol.proto.LogTailRequest;
import io.vcorfu.protocol.proto.LogTailResponse;
import io.vcorfu.protocol.proto.LogTrimRequest;
import io.vcorfu.protocol.proto.LogTrimResponse;
import io.vcorfu.protocol.proto.LogWriteRequest;
import io.vcorfu.protocol.proto.LogWriteResponse;
import io.vcorfu.protocol.proto.ReadResult;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * A log replica: entries indexed by global address, write-once, with commit bits, fills and prefix
 * trim.
 *
 * <p>Each operation has a Java form taking vcorfu values (the node's own callers, such as {@link
 * ReplicaStore#chainWrite}, use it in-process) and a form taking the wire request, which only
 * converts onto it.
 *
 * <p>Thread-safe and linearizable: every call checks and changes the state while holding the
 * engine's monitor. Every future completes only when what the call did (and everything before it)
 * is durable per the {@link FsyncPolicy}; errors are typed {@link VCorfuException}s delivered
 * through the future. Nothing here retries: callers (writers and repairing readers) do.
 */
public final class LogReplica implements AutoCloseable {
  /**
   * The namespace the global log uses inside the storage engine; no stream id has this value (a
   * stream id is a version-3 UUID), and stream replicas refuse it.
   */
  static final StreamId LOG = KeptHoles.LOG;

  private final StorageEngine engine;
  private final JoinState join;
  private final boolean ownsEngine;

  /** Payloads of the last log records stored, for the node's stream replica; null when alone. */
  private final RecentLogPayloads recent;

  /** The stream tails the entries held show, for tail answers that ask for them. */
  private final StreamTailIndex tailIndex;

  LogReplica(StorageEngine engine, boolean ownsEngine, JoinState join) {
    this(engine, ownsEngine, join, null);
  }

  LogReplica(StorageEngine engine, boolean ownsEngine, JoinState join, RecentLogPayloads recent) {
    this.engine = engine;
    this.ownsEngine = ownsEngine;
    this.join = join;
    this.recent = recent;
    this.tailIndex = new StreamTailIndex(engine, (from, to) -> call(() -> held(from, to)));
  }

  /**
   * Opens (and in durable mode recovers) a log replica with a storage engine of its own. A node
   * that also hosts a stream replica opens a {@link ReplicaStore} instead, so both share one.
   */
  public static LogReplica open(StorageOptions options) throws IOException {
    return new LogReplica(StorageEngine.open(options), true, new JoinState());
  }

  /**
   * Writes an entry at its global address, committed when {@code commit} is set (this replica is
   * the last of the chain). Re-driving the same entry is idempotent; anything else at the address
   * fails with OverwrittenException, below the trim mark with TrimmedException.
   */
  public CompletableFuture<Void> write(LogEntryMsg entry, boolean commit) {
    return call(
        () -> {
          checkWrite(entry);
          long address = entry.getGlobalAddress();
          if (skips(entry)) {
            return CompletableFuture.completedFuture(null); // see JoinState
          }
          EntryRecords.Prepared prepared = EntryRecords.prepare(engine, entry);
          CompletableFuture<Void> barrier;
          synchronized (engine) {
            IndexedRecord held = claim(address, prepared.hash());
            if (held == null) {
              put(prepared, commit ? StorageEngine.COMMITTED : 0);
            } else if (commit && !held.committed()) {
              engine.commit(key(LOG, address));
            }
            barrier = engine.barrier();
          }
          return barrier.thenApply(v -> v);
        });
  }

  /** Refuses anything but a DATA entry with a global address (BadRequestException). */
  static void checkWrite(LogEntryMsg entry) {
    if (entry == null || entry.getGlobalAddress() < 0 || entry.getKind() != EntryKind.DATA) {
      throw new BadRequestException(
          "A log write needs a DATA entry with a global address "
              + "of 0 or more; holes are written by fill.");
    }
  }

  /** True when this replica rebuilds the entry's chain and does not store it (see JoinState). */
  boolean skips(LogEntryMsg entry) {
    return entry.getEpoch() < join.since() && join.rebuildsLog(entry.getGlobalAddress());
  }

  /**
   * Under the engine's monitor: what the log holds at {@code address} for a write of an entry with
   * content hash {@code hash}: null when nothing (the write stores it), the record when it is the
   * same entry (a re-drive); OverwrittenException when the address holds anything else, or a hole
   * kept below the trim mark ({@link KeptHoles}); TrimmedException elsewhere below the mark.
   */
  IndexedRecord claim(long address, int hash) {
    long trim = engine.trimMark(LOG);
    if (address < trim) {
      if (KeptHoles.below(engine, LOG, address) != null) {
        throw new OverwrittenException(address, null, true, -1);
      }
      throw new TrimmedException(trim, null);
    }
    IndexedRecord held = engine.lookup(LOG, address);
    if (held == null || (!held.hole() && held.global() == address && held.hash() == hash)) {
      return held;
    }
    throw new OverwrittenException(address, null, held.hole(), held.hole() ? -1 : held.global());
  }

  /** Under the engine's monitor: stores {@code entry} (claimed) at its address. */
  private void put(EntryRecords.Prepared p, byte flags) {
    long address = p.entry().getGlobalAddress();
    engine.put(key(LOG, address), address, p.hash(), flags, p.bytes(), p.digest(), p.crc());
    stored(p.entry(), p.bytes());
  }

  /**
   * Under the engine's monitor: notes that {@code entry}, serialized as {@code bytes}, was just
   * stored at its address (alone, or in one record with its stream slots).
   */
  void stored(LogEntryMsg entry, byte[] bytes) {
    tailIndex.written(entry);
    if (recent != null) {
      long address = entry.getGlobalAddress();
      recent.remember(address, engine.lookup(LOG, address), bytes);
    }
  }

  public CompletableFuture<LogWriteResponse> write(LogWriteRequest request) {
    return write(request.hasEntry() ? request.getEntry() : null, request.getCommit())
        .thenApply(v -> LogWriteResponse.getDefaultInstance());
  }

  /**
   * Commits DATA entries. An address holding nothing fails the whole call with BadRequestException
   * (nothing is committed); committed entries, holes and trimmed addresses are left as they are.
   */
  public CompletableFuture<Void> commit(List<Long> addresses) {
    return commit(addresses, false);
  }

  /**
   * Commits the DATA entries this replica holds at {@code addresses} and skips the rest (nothing
   * there, holes, trimmed): the commits that ride on a chain write ({@code
   * ChainWriteRequest.commit_log}). Does not wait for them to be durable: a commit lost in a crash
   * only leaves the entry for a reader to decide again.
   */
  public void commitHeld(List<Long> addresses) {
    if (!addresses.isEmpty()) {
      commit(addresses, true);
    }
  }

  private CompletableFuture<Void> commit(List<Long> addresses, boolean skipEmpty) {
    return call(
        () -> {
          CompletableFuture<Void> barrier;
          synchronized (engine) {
            long trim = engine.trimMark(LOG);
            List<Long> toCommit = new ArrayList<>();
            for (long address : addresses) {
              if (address < trim) {
                continue;
              }
              IndexedRecord held = engine.lookup(LOG, address);
              if (held == null) {
                if (skipEmpty || join.rebuildsLog(address)) {
                  continue; // see JoinState
                }
                throw new BadRequestException(
                    "Global address " + address + " holds nothing, so there is nothing to commit.");
              }
              if (!held.hole() && !held.committed()) {
                toCommit.add(address);
              }
            }
            if (!toCommit.isEmpty()) {
              long[] keys = new long[toCommit.size() * 3];
              for (int i = 0; i < toCommit.size(); i++) {
                System.arraycopy(key(LOG, toCommit.get(i)), 0, keys, i * 3, 3);
              }
              engine.commit(keys);
            }
            barrier = engine.barrier();
          }
          return barrier.thenApply(v -> v);
        });
  }

  /** {@link #commit(List)} for a request from the wire. */
  public CompletableFuture<LogCommitResponse> commit(LogCommitRequest request) {
    return commit(request.getAddressesList())
        .thenApply(v -> LogCommitResponse.getDefaultInstance());
  }

  /**
   * Repairs an address: an empty one gets a HOLE (committed iff {@code commit}); an uncommitted
   * entry is replaced by a committed HOLE when {@code abort} is set and {@code abort_nonce} names
   * it (or is 0); anything else is left as it is. Returns what the address holds afterwards.
   */
  public CompletableFuture<ReadResult> fill(
      long address, boolean abort, long abortNonce, boolean commit) {
    return call(
        () -> {
          if (address < 0) {
            throw new BadRequestException("Cannot fill the negative address " + address + ".");
          }
          return HoleFill.fill(
              engine,
              LOG,
              address,
              address,
              KeptHoles.holeAt(address),
              abort,
              abortNonce,
              commit,
              join.rebuildsLog(address));
        });
  }

  /** {@link #fill(long, boolean, long, boolean)} for a request from the wire. */
  public CompletableFuture<LogFillResponse> fill(LogFillRequest request) {
    return fill(
            request.getAddress(), request.getAbort(), request.getAbortNonce(), request.getCommit())
        .thenApply(r -> LogFillResponse.newBuilder().setResult(r).build());
  }

  /**
   * Reads {@code [from, to]} inclusive (at most 4,096 addresses): one result per address, EMPTY,
   * UNCOMMITTED, COMMITTED (a fill is a HOLE entry) or TRIMMED.
   */
  public CompletableFuture<List<ReadResult>> read(long from, long to) {
    return call(
        () -> {
          ReadPlanning.checkRange(from, to);
          java.util.function.LongPredicate hidden = join.logReadsHidden("log replica", from, to);
          CompletableFuture<List<ReadResult>> held = held(from, to);
          return hidden == null ? held : held.thenApply(l -> hide(l, from, hidden));
        });
  }

  /**
   * {@code results} of the addresses from {@code from} on, those {@code hidden} accepts (of chains
   * this replica rebuilds, see {@link JoinState}) answered EMPTY.
   */
  private static List<ReadResult> hide(
      List<ReadResult> results, long from, java.util.function.LongPredicate hidden) {
    List<ReadResult> out = new ArrayList<>(results.size());
    for (int i = 0; i < results.size(); i++) {
      long a = from + i;
      out.add(
          hidden.test(a)
              ? ReadResult.newBuilder().setAddress(a).setStatus(ReadResult.Status.EMPTY).build()
              : results.get(i));
    }
    return out;
  }

  /** What {@code [from, to]} holds, whether or not this replica serves reads. */
  private CompletableFuture<List<ReadResult>> held(long from, long to) {
    ReadPlanning.checkRange(from, to);
    List<PlannedRead> plans = new ArrayList<>();
    CompletableFuture<Void> barrier;
    synchronized (engine) {
      for (long a = from; a <= to; a++) {
        plans.add(ReadPlanning.plan(engine, LOG, a));
      }
      barrier = engine.barrier();
    }
    return ReadPlanning.answer(engine, barrier, plans);
  }

  /** {@link #read(long, long)} for a request from the wire. */
  public CompletableFuture<LogReadResponse> read(LogReadRequest request) {
    return read(request.getFrom(), request.getTo())
        .thenApply(r -> LogReadResponse.newBuilder().addAllResults(r).build());
  }

  /**
   * The highest address ever written (any status, -1 when none; trimming does not lower it) and the
   * trim mark (and, when asked, the holes kept below it).
   */
  public CompletableFuture<LogTailResponse> tail(LogTailRequest request) {
    return call(
        () -> {
          LogTailResponse response;
          CompletableFuture<Void> barrier;
          synchronized (engine) {
            LogTailResponse.Builder b =
                LogTailResponse.newBuilder()
                    .setTail(engine.maxAddress(LOG))
                    .setTrimMark(engine.trimMark(LOG));
            if (request.getKeptHoles()) {
              for (long a : KeptHoles.list(engine)) {
                b.addKeptHoles(a);
              }
            }
            response = b.build();
            barrier = engine.barrier();
          }
          CompletableFuture<LogTailResponse> plain = barrier.thenApply(v -> response);
          return request.getStreams()
              ? plain.thenCompose(p -> tailIndex.withStreams(p, streamTails()))
              : plain;
        });
  }

  /**
   * Per stream, the highest stream address among the DATA entries this replica holds (committed or
   * not) and that entry's global address. The first call reads every entry held, off the caller's
   * thread; every write keeps the index up to date from the moment it exists, so entries written
   * while it is built are counted too.
   */
  public synchronized CompletableFuture<Map<StreamId, long[]>> streamTails() {
    return tailIndex.tails();
  }

  /** Counts {@code entry}, stored here by other means than a write (a rebuild), in the index. */
  void noted(LogEntryMsg entry) {
    tailIndex.noted(entry);
  }

  /**
   * Prefix trim, decided first ({@link KeptHoles}): releases the addresses below {@code before} up
   * to the first that {@code owned} accepts and this replica holds undecided (empty, or not
   * committed), keeping the holes it passes; with {@code dryRun} releases nothing and only looks.
   * The mark never goes back; the answer carries the mark in force afterwards and the lowest
   * undecided addresses found. As for a stream ({@link StreamReplica#trim}), {@code before} must
   * lie in [0, highest address held + 1], else BadRequestException and nothing is trimmed: a mark
   * past the tail would refuse every later write below it.
   */
  public CompletableFuture<KeptHoles.Trim> trim(
      long before, java.util.function.LongPredicate owned, boolean dryRun) {
    return call(
        () -> {
          KeptHoles.Trim done;
          CompletableFuture<Void> barrier;
          synchronized (engine) {
            TrimBounds.check("the log", before, engine.maxAddress(LOG));
            done = KeptHoles.trim(engine, before, owned, dryRun);
            barrier = engine.barrier();
          }
          return barrier.thenApply(v -> done);
        });
  }

  /** {@link #trim(long, java.util.function.LongPredicate, boolean)} of every address. */
  public CompletableFuture<Long> trim(long before) {
    return trim(before, a -> true, false).thenApply(KeptHoles.Trim::mark);
  }

  /** {@link #trim(long, java.util.function.LongPredicate, boolean)} for a request from the wire. */
  public CompletableFuture<LogTrimResponse> trim(LogTrimRequest request) {
    return trim(request.getBefore(), owned(request.getStripesList()), request.getDryRun())
        .thenApply(
            t -> {
              LogTrimResponse.Builder r =
                  LogTrimResponse.newBuilder().setTrimMark(t.mark()).setMoreUndecided(t.more());
              for (long a : t.undecided()) {
                r.addUndecided(a);
              }
              return r.build();
            });
  }

  /** The addresses {@code stripes} name this replica's; every address when there are none. */
  static java.util.function.LongPredicate owned(List<LogStripe> stripes) {
    if (stripes.isEmpty()) {
      return a -> true;
    }
    // Read once into arrays: the trim asks this of every address it passes, under the engine's
    // monitor.
    int n = stripes.size();
    long[] from = new long[n];
    long[] to = new long[n];
    boolean[][] held = new boolean[n][];
    for (int i = 0; i < n; i++) {
      LogStripe s = stripes.get(i);
      from[i] = s.getFrom();
      to[i] = s.getTo();
      held[i] = new boolean[Math.max(0, s.getChains())];
      for (int c : s.getHeldList()) {
        if (c >= 0 && c < held[i].length) {
          held[i][c] = true;
        }
      }
    }
    return a -> {
      for (int i = 0; i < n; i++) {
        if (a >= from[i] && a < to[i] && held[i].length > 0) {
          return held[i][(int) (a % held[i].length)];
        }
      }
      return false;
    };
  }

  /** The addresses below the trim mark this replica keeps holes for, ascending. */
  public long[] keptHoles() {
    synchronized (engine) {
      return KeptHoles.list(engine);
    }
  }

  /**
   * Keeps holes at {@code addresses} below the trim mark, as the chain this replica rebuilds keeps
   * them; durable when the future completes, with how many were new.
   */
  public CompletableFuture<Integer> adoptKeptHoles(long[] addresses) {
    int added;
    CompletableFuture<Void> barrier;
    synchronized (engine) {
      added = KeptHoles.adopt(engine, addresses);
      barrier = engine.barrier();
    }
    return barrier.thenApply(v -> added);
  }

  /** What opening this replica found on disk (for operators and tests). */
  public RecoveryStats recoveryStats() {
    return engine.recoveryStats();
  }

  public StorageOptions options() {
    return engine.options();
  }

  /**
   * Makes everything written durable, then releases the files (unless a {@link ReplicaStore} owns
   * them); later calls fail.
   */
  @Override
  public void close() throws IOException {
    if (ownsEngine) {
      engine.close();
    }
  }

  static <T> CompletableFuture<T> call(Supplier<CompletableFuture<T>> body) {
    try {
      return body.get();
    } catch (VCorfuException e) {
      return CompletableFuture.failedFuture(e);
    }
  }
}
