package io.vcorfu.logunit;

import static io.vcorfu.logunit.internal.EntryRecords.key;

import io.vcorfu.logunit.internal.ChainIndex;
import io.vcorfu.logunit.internal.EntryRecords;
import io.vcorfu.logunit.internal.HoleFill;
import io.vcorfu.logunit.internal.IndexedRecord;
import io.vcorfu.logunit.internal.PlannedRead;
import io.vcorfu.logunit.internal.ReadPlanning;
import io.vcorfu.logunit.internal.StorageEngine;
import io.vcorfu.logunit.internal.StreamPins;
import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.OverwrittenException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.protocol.UnknownStreamException;
import io.vcorfu.protocol.VCorfuException;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.StreamCommitRequest;
import io.vcorfu.protocol.proto.StreamCommitResponse;
import io.vcorfu.protocol.proto.StreamFillRequest;
import io.vcorfu.protocol.proto.StreamFillResponse;
import io.vcorfu.protocol.proto.StreamIdMsg;
import io.vcorfu.protocol.proto.StreamPinRequest;
import io.vcorfu.protocol.proto.StreamPinResponse;
import io.vcorfu.protocol.proto.StreamReadRequest;
import io.vcorfu.protocol.proto.StreamReadResponse;
import io.vcorfu.protocol.proto.StreamSlot;
import io.vcorfu.protocol.proto.StreamTailEntry;
import io.vcorfu.protocol.proto.StreamTailRequest;
import io.vcorfu.protocol.proto.StreamTailResponse;
import io.vcorfu.protocol.proto.StreamTrimRequest;
import io.vcorfu.protocol.proto.StreamTrimResponse;
import io.vcorfu.protocol.proto.StreamWriteRequest;
import io.vcorfu.protocol.proto.StreamWriteResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * A stream replica: materialized streams, entries indexed by (stream id, stream address), each slot
 * write-once, with commit bits, fills and per-stream prefix trim.
 *
 * <p>Entries are stored whole, backpointers in their stream slots included (a stream replica does
 * not read them; readers of the log do, while a stream's replicas are gone).
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
public final class StreamReplica implements AutoCloseable {
  private final StorageEngine engine;
  private final JoinState join;
  private final boolean ownsEngine;

  /** The node's log replica's last payloads, to share instead of storing twice; null if alone. */
  private final RecentLogPayloads recent;

  StreamReplica(StorageEngine engine, boolean ownsEngine, JoinState join) {
    this(engine, ownsEngine, join, null);
  }

  StreamReplica(
      StorageEngine engine, boolean ownsEngine, JoinState join, RecentLogPayloads recent) {
    this.join = join;
    this.engine = engine;
    this.ownsEngine = ownsEngine;
    this.recent = recent;
  }

  /**
   * Opens (and in durable mode recovers) a stream replica with a storage engine of its own. A node
   * that also hosts a log replica opens a {@link ReplicaStore} instead, so both share one.
   */
  public static StreamReplica open(StorageOptions options) throws IOException {
    return new StreamReplica(StorageEngine.open(options), true, new JoinState());
  }

  /** One slot of a stream: a stream address of one stream. */
  public record Slot(StreamId stream, long address) {
    /** The slot a wire {@code StreamSlot} names. */
    public static Slot of(StreamSlot slot) {
      return new Slot(StreamId.fromMsg(slot.getStream()), slot.getStreamAddress());
    }

    /** The slots wire {@code StreamSlot}s name, in order. */
    public static List<Slot> of(List<StreamSlot> slots) {
      List<Slot> out = new ArrayList<>(slots.size());
      slots.forEach(s -> out.add(of(s)));
      return out;
    }
  }

  /** The stream named by {@code msg}; the log's reserved namespace is refused. */
  private static StreamId streamOf(StreamIdMsg msg) {
    return checked(StreamId.fromMsg(msg));
  }

  /** {@code id}, unless it is the log's reserved namespace. */
  private static StreamId checked(StreamId id) {
    if (io.vcorfu.logunit.internal.KeptHoles.reserved(id)) {
      throw new BadRequestException(
          "Stream id "
              + id
              + " is reserved for the global log; "
              + "stream ids are version-3 UUIDs of stream names.");
    }
    return id;
  }

  /**
   * Writes one entry into all of the given slots atomically (all or none), committed when {@code
   * commit} is set. A slot already holding the same entry (same global address and content) is a
   * re-drive and succeeds; a slot holding anything else fails the whole write with
   * OverwrittenException for that slot, a slot below its stream's trim mark with TrimmedException.
   */
  public CompletableFuture<Void> write(LogEntryMsg entry, List<Slot> slots, boolean commit) {
    return LogReplica.call(
        () -> {
          List<Slot> kept = writable(entry, slots);
          if (kept.isEmpty()) {
            return CompletableFuture.completedFuture(null);
          }
          return store(entry, kept, commit, entry.getGlobalAddress());
        });
  }

  /**
   * The slots of {@code slots} a write of {@code entry} stores here: all of them, less the slots of
   * chains this replica rebuilds when the entry is older than the join (see JoinState); empty when
   * there is nothing to store. BadRequestException for a write that is not well formed.
   */
  List<Slot> writable(LogEntryMsg entry, List<Slot> slots) {
    if (entry == null
        || entry.getGlobalAddress() < 0
        || entry.getKind() != EntryKind.DATA
        || slots.isEmpty()) {
      throw new BadRequestException(
          "A stream write needs a DATA entry with a global address "
              + "of 0 or more and at least one stream slot; holes are written by fill.");
    }
    Set<StreamId> seen = new HashSet<>();
    for (Slot slot : slots) {
      if (slot.address() < 0 || !seen.add(checked(slot.stream()))) {
        throw new BadRequestException(
            "Each slot of a stream write must name a different stream "
                + "and an address of 0 or more; slot "
                + slot.address()
                + " of stream "
                + slot.stream()
                + " does not.");
      }
    }
    if (entry.getEpoch() >= join.since()) {
      return slots;
    }
    List<Slot> kept = new ArrayList<>(slots.size());
    for (Slot slot : slots) {
      if (!join.rebuildsStream(slot.stream())) {
        kept.add(slot);
      }
    }
    return kept;
  }

  /**
   * What a write of an entry (global address {@code global}, content hash {@code hash}) finds in
   * its slots: the keys of the slots holding nothing, and of the slots holding the same entry
   * uncommitted (a re-drive).
   */
  record Claims(List<long[]> fresh, List<long[]> heldUncommitted) {}

  /**
   * Under the engine's monitor: claims {@code slots} for the entry, all or none: TrimmedException
   * for a slot below its stream's trim mark, OverwrittenException for a slot holding anything else.
   */
  Claims claim(List<Slot> slots, long global, int hash) {
    List<long[]> fresh = new ArrayList<>();
    List<long[]> uncommitted = new ArrayList<>();
    for (Slot slot : slots) {
      StreamId stream = slot.stream();
      long address = slot.address();
      long trim = engine.trimMark(stream);
      if (address < trim) {
        throw new TrimmedException(trim, stream);
      }
      IndexedRecord held = engine.lookup(stream, address);
      if (held == null) {
        fresh.add(key(stream, address));
      } else if (!held.hole() && held.global() == global && held.hash() == hash) {
        if (!held.committed()) {
          uncommitted.add(key(stream, address));
        }
      } else {
        throw new OverwrittenException(
            address, stream, held.hole(), held.hole() ? -1 : held.global());
      }
    }
    return new Claims(fresh, uncommitted);
  }

  /** Stores {@code entry} in {@code slots} (checked already) as {@link #write} says. */
  private CompletableFuture<Void> store(
      LogEntryMsg entry, List<Slot> slots, boolean commit, long global) {
    EntryRecords.Prepared prepared = EntryRecords.prepare(engine, entry);
    byte[] bytes = prepared.bytes();
    int hash = prepared.hash();
    CompletableFuture<Void> barrier;
    synchronized (engine) {
      Claims claims = claim(slots, global, hash);
      if (!claims.fresh().isEmpty()) {
        long[] keys = EntryRecords.flatten(claims.fresh());
        byte flags = commit ? StorageEngine.COMMITTED : 0;
        IndexedRecord logCopy = recent == null ? null : engine.lookup(LogReplica.LOG, global);
        if (logCopy != null && recent.holds(global, logCopy, bytes)) {
          engine.putShared(keys, global, hash, flags, logCopy);
        } else {
          engine.put(keys, global, hash, flags, bytes, prepared.digest(), prepared.crc());
        }
      }
      if (commit && !claims.heldUncommitted().isEmpty()) {
        engine.commit(EntryRecords.flatten(claims.heldUncommitted()));
      }
      barrier = engine.barrier();
    }
    return barrier.thenApply(v -> v);
  }

  /** {@link #write(LogEntryMsg, List, boolean)} for a request from the wire. */
  public CompletableFuture<StreamWriteResponse> write(StreamWriteRequest request) {
    return LogReplica.call(
            () ->
                write(
                    request.hasEntry() ? request.getEntry() : null,
                    Slot.of(request.getSlotsList()),
                    request.getCommit()))
        .thenApply(v -> StreamWriteResponse.getDefaultInstance());
  }

  /**
   * Commits DATA entries in the given slots. A slot holding nothing fails the whole call with
   * BadRequestException (nothing is committed); committed entries, holes and trimmed slots are left
   * as they are.
   */
  public CompletableFuture<Void> commit(List<Slot> slots) {
    return commit(slots, false);
  }

  /**
   * Commits the DATA entries this replica holds in {@code slots} and skips the rest (nothing there,
   * holes, trimmed): the commits that ride on a chain write ({@code
   * ChainWriteRequest.commit_slots}). Does not wait for them to be durable: a commit lost in a
   * crash only leaves the entry for a reader to decide again.
   */
  public void commitHeld(List<Slot> slots) {
    if (!slots.isEmpty()) {
      commit(slots, true);
    }
  }

  private CompletableFuture<Void> commit(List<Slot> slots, boolean skipEmpty) {
    return LogReplica.call(
        () -> {
          CompletableFuture<Void> barrier;
          synchronized (engine) {
            List<long[]> toCommit = new ArrayList<>();
            for (Slot slot : slots) {
              StreamId stream = checked(slot.stream());
              long address = slot.address();
              if (address < engine.trimMark(stream)) {
                continue;
              }
              IndexedRecord held = engine.lookup(stream, address);
              if (held == null) {
                if (skipEmpty || join.rebuildsStream(stream)) {
                  continue; // see JoinState
                }
                throw new BadRequestException(
                    "Address "
                        + address
                        + " of stream "
                        + stream
                        + " holds nothing, so there is nothing to commit.");
              }
              if (!held.hole() && !held.committed()) {
                toCommit.add(key(stream, address));
              }
            }
            if (!toCommit.isEmpty()) {
              engine.commit(EntryRecords.flatten(toCommit));
            }
            barrier = engine.barrier();
          }
          return barrier.thenApply(v -> v);
        });
  }

  /** {@link #commit(List)} for a request from the wire. */
  public CompletableFuture<StreamCommitResponse> commit(StreamCommitRequest request) {
    return LogReplica.call(() -> commit(Slot.of(request.getSlotsList())))
        .thenApply(v -> StreamCommitResponse.getDefaultInstance());
  }

  /**
   * Repairs a slot: an empty one gets a HOLE (committed iff {@code commit}); an uncommitted entry
   * is replaced by a committed HOLE when {@code abort} is set and {@code abort_nonce} names it (or
   * is 0); anything else is left as it is. Returns what the slot holds afterwards.
   */
  public CompletableFuture<ReadResult> fill(
      StreamId stream, long address, boolean abort, long abortNonce, boolean commit) {
    return LogReplica.call(
        () -> {
          checked(stream);
          if (address < 0) {
            throw new BadRequestException(
                "Cannot fill the negative address " + address + " of stream " + stream + ".");
          }
          byte[] hole =
              LogEntryMsg.newBuilder()
                  .setGlobalAddress(-1)
                  .setKind(EntryKind.HOLE)
                  .addSlots(
                      StreamSlot.newBuilder().setStream(stream.toMsg()).setStreamAddress(address))
                  .build()
                  .toByteArray();
          return HoleFill.fill(
              engine,
              stream,
              address,
              -1,
              hole,
              abort,
              abortNonce,
              commit,
              join.rebuildsStream(stream));
        });
  }

  /** {@link #fill(StreamId, long, boolean, long, boolean)} for a request from the wire. */
  public CompletableFuture<StreamFillResponse> fill(StreamFillRequest request) {
    return LogReplica.call(
            () ->
                fill(
                    StreamId.fromMsg(request.getStream()),
                    request.getStreamAddress(),
                    request.getAbort(),
                    request.getAbortNonce(),
                    request.getCommit()))
        .thenApply(r -> StreamFillResponse.newBuilder().setResult(r).build());
  }

  /**
   * Reads stream addresses {@code [from, to]} inclusive (at most 4,096); UnknownStreamException
   * when this replica never held anything for the stream.
   */
  public CompletableFuture<List<ReadResult>> read(StreamId stream, long from, long to) {
    return LogReplica.call(
        () -> {
          join.checkServesReads("stream replica", stream);
          checked(stream);
          ReadPlanning.checkRange(from, to);
          List<PlannedRead> plans = new ArrayList<>();
          CompletableFuture<Void> barrier;
          synchronized (engine) {
            if (!engine.knows(stream)) {
              throw new UnknownStreamException(stream);
            }
            for (long a = from; a <= to; a++) {
              plans.add(ReadPlanning.plan(engine, stream, a));
            }
            // Waits only if a record of this stream is not durable yet, not for other streams'
            // writes.
            barrier = engine.barrierFor(stream, true);
          }
          return ReadPlanning.answer(engine, barrier, plans);
        });
  }

  /** {@link #read(StreamId, long, long)} for a request from the wire. */
  public CompletableFuture<StreamReadResponse> read(StreamReadRequest request) {
    return LogReplica.call(
            () -> read(StreamId.fromMsg(request.getStream()), request.getFrom(), request.getTo()))
        .thenApply(r -> StreamReadResponse.newBuilder().addAllResults(r).build());
  }

  /**
   * Per stream (the requested ones, or every stream held when {@code all} is set): the highest
   * stream address held (-1 when none; trimming does not lower it), the global address of the
   * stream's last DATA entry (holes after it skipped; -1 when the stream never held data, the next
   * one the sequencer rebuilds at bootstrap) and the trim mark; plus the highest global address of
   * any entry held. A sequencer rebuilds its tails from this after a restart.
   */
  public CompletableFuture<StreamTailResponse> tail(StreamTailRequest request) {
    return LogReplica.call(
        () -> {
          StreamTailResponse.Builder response = StreamTailResponse.newBuilder();
          CompletableFuture<Void> barrier;
          synchronized (engine) {
            List<StreamId> streams = new ArrayList<>();
            if (request.getAll()) {
              streams.addAll(engine.namespaces());
              streams.removeIf(io.vcorfu.logunit.internal.KeptHoles::reserved);
              streams.sort(null);
            } else {
              for (StreamIdMsg s : request.getStreamsList()) {
                streams.add(streamOf(s));
              }
            }
            for (StreamId s : streams) {
              response.addTails(
                  StreamTailEntry.newBuilder()
                      .setStream(s.toMsg())
                      .setTail(engine.maxAddress(s))
                      .setLastGlobal(engine.lastGlobal(s))
                      .setTrimMark(engine.trimMark(s))
                      .setTrimFloorGlobal(engine.floorGlobal(s))
                      .setTrimAnchor(ChainIndex.anchorBytes(engine, s))
                      .addAllPins(StreamMarks.pins(engine, s)));
            }
            response.setMaxGlobal(engine.maxGlobal());
            barrier = engine.barrier();
          }
          return barrier.thenApply(v -> response.build());
        });
  }

  /** See {@link StreamMarks#trim}. */
  public CompletableFuture<Long> trim(StreamId stream, long before) {
    return LogReplica.call(() -> StreamMarks.trim(engine, join, checked(stream), before));
  }

  /** {@link #trim(StreamId, long)} for a request from the wire. */
  public CompletableFuture<StreamTrimResponse> trim(StreamTrimRequest request) {
    return LogReplica.call(() -> trim(StreamId.fromMsg(request.getStream()), request.getBefore()))
        .thenApply(mark -> StreamTrimResponse.newBuilder().setTrimMark(mark).build());
  }

  /** See {@link StreamMarks#pin}. */
  public CompletableFuture<StreamPinResponse> pin(StreamPinRequest request) {
    return LogReplica.call(() -> StreamMarks.pin(engine, streamOf(request.getStream()), request));
  }

  /**
   * Takes, by stream, the pins its chain holds (a replica rebuilding the chains it joined at epoch
   * {@code since} takes them from the chain's serving replicas), keeping its own; then lets trims
   * of those chains in ({@link JoinState#checkTrims}). Completes once durable.
   */
  public CompletableFuture<Void> adoptPins(Map<StreamId, Map<StreamId, Long>> pins, long since) {
    CompletableFuture<Void> barrier;
    synchronized (engine) {
      pins.forEach((stream, held) -> StreamPins.adopt(engine, stream, held));
      barrier = engine.barrier();
    }
    return barrier.thenRun(() -> join.marksTaken(since));
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
}
