package io.vcorfu.layout;

import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * The ordered replica visits that hold one entry's copies: the write path sends them all at once
 * (one message per node), decisions ask {@link #last()}, the decider, and aborts replace the copies
 * last first (see {@code ChainWriter} in the client).
 *
 * <p>Order: every endpoint of the log chain for the entry's global address (role {@link Role#LOG},
 * carrying all of the entry's streams); then, for each distinct stream chain the entry touches in
 * {@link Layout#streamChainOrder() chain order} (the chain index order unless stream chains were
 * split) except the last, every endpoint of that chain (role {@link Role#STREAM}) with the entry's
 * streams that chain hosts, in the entry's order, a replica that belongs to several of these chains
 * visited once, at its first position, with all of its streams; last, the <em>deciding chain</em>
 * (the touched chain last in that order), every endpoint head first with the entry's streams of
 * that chain only, even a replica already visited for other streams. The plan depends only on the
 * layout, the global address and the entry's stream list, so every client computes the same plan
 * for the same entry.
 *
 * <p>Invariant: every visit of the deciding stream chain comes after every visit outside it. Any
 * replica of that chain may become the decider when the ones after it are removed, and an abort
 * replaces copies last first, so it reaches the replicas that may decide next before any other
 * copy: the order the client's write-path model checks (with the serial writes this plan used to
 * drive, interleaving the log chain with the deciding chain lost decisions).
 */
public record ChainPlan(long globalAddress, List<Visit> visits) {

  /** What a replica does with a visit. */
  public enum Role {
    /** Store the entry by global address. */
    LOG,
    /** Store the entry in the listed streams' materialized streams. */
    STREAM
  }

  /**
   * One replica visit.
   *
   * @param streams for {@link Role#STREAM}, the streams of the entry hosted by this replica; for
   *     {@link Role#LOG}, all of the entry's streams
   */
  public record Visit(Role role, Endpoint endpoint, List<StreamId> streams) {
    public Visit {
      Objects.requireNonNull(role, "role");
      Objects.requireNonNull(endpoint, "endpoint");
      streams = List.copyOf(streams);
    }
  }

  public ChainPlan {
    visits = List.copyOf(visits);
    if (visits.isEmpty()) {
      throw new IllegalArgumentException("a chain plan needs at least one visit");
    }
  }

  /**
   * The plan for an entry of the layout's epoch (or a later one) at {@code globalAddress} written
   * to {@code streams}; see {@link #of(Layout, long, List, long)}.
   */
  public static ChainPlan of(Layout layout, long globalAddress, List<StreamId> streams) {
    return of(layout, globalAddress, streams, Long.MAX_VALUE);
  }

  /**
   * The plan for an entry stamped with {@code epoch} at {@code globalAddress} written to {@code
   * streams} (no duplicates; may be empty: then only the log chain is visited). A stream chain that
   * is empty (every replica it had is gone), or that was taken up again at an epoch later than the
   * entry's ({@link Layout#streamChainSince}), is left out: the entry's slots in its streams are
   * held by the log (and read from it) alone, and the entry is decided without that chain, as it
   * was when it was written. So one entry's plan never gains a chain it was decided without.
   */
  public static ChainPlan of(
      Layout layout, long globalAddress, List<StreamId> streams, long epoch) {
    if (streams.size() == 1) {
      return ofOneStream(layout, globalAddress, streams.get(0), epoch);
    }
    return ofAny(layout, globalAddress, streams, epoch);
  }

  /** {@link #of(Layout, long, List, long)} for any number of streams. */
  static ChainPlan ofAny(Layout layout, long globalAddress, List<StreamId> streams, long epoch) {
    Set<StreamId> distinct = new HashSet<>(streams);
    if (distinct.size() != streams.size()) {
      throw new IllegalArgumentException("an entry lists a stream more than once: " + streams);
    }
    List<Visit> visits = new ArrayList<>();
    for (Endpoint e : layout.logChain(globalAddress)) {
      visits.add(new Visit(Role.LOG, e, streams));
    }
    List<List<Endpoint>> chains = layout.currentSegment().stream();
    // Chains in plan order (see Layout#streamChainOrder: a split never reorders them).
    TreeMap<Integer, List<StreamId>> byChain = new TreeMap<>(layout.streamChainOrder());
    for (StreamId s : streams) {
      int c = layout.streamChainIndex(s);
      if (!chains.get(c).isEmpty() && layout.streamChainSince(c) <= epoch) {
        byChain.computeIfAbsent(c, k -> new ArrayList<>()).add(s);
      }
    }
    if (byChain.isEmpty()) {
      return new ChainPlan(globalAddress, visits);
    }
    Map.Entry<Integer, List<StreamId>> deciding = byChain.pollLastEntry();
    Map<Endpoint, List<StreamId>> streamVisits = new LinkedHashMap<>();
    for (Map.Entry<Integer, List<StreamId>> chain : byChain.entrySet()) {
      for (Endpoint e : chains.get(chain.getKey())) {
        streamVisits.computeIfAbsent(e, k -> new ArrayList<>()).addAll(chain.getValue());
      }
    }
    for (Map.Entry<Endpoint, List<StreamId>> v : streamVisits.entrySet()) {
      List<StreamId> hosted = new ArrayList<>(v.getValue());
      hosted.sort((a, b) -> Integer.compare(streams.indexOf(a), streams.indexOf(b)));
      visits.add(new Visit(Role.STREAM, v.getKey(), hosted));
    }
    for (Endpoint e : chains.get(deciding.getKey())) {
      visits.add(new Visit(Role.STREAM, e, deciding.getValue()));
    }
    return new ChainPlan(globalAddress, visits);
  }

  /**
   * {@link #of(Layout, long, List, long)} for an entry of one stream (most are), built directly.
   */
  private static ChainPlan ofOneStream(
      Layout layout, long globalAddress, StreamId stream, long epoch) {
    List<StreamId> streams = List.of(stream);
    List<Visit> visits = new ArrayList<>();
    for (Endpoint e : layout.logChain(globalAddress)) {
      visits.add(new Visit(Role.LOG, e, streams));
    }
    int c = layout.streamChainIndex(stream);
    List<Endpoint> chain = layout.currentSegment().stream().get(c);
    if (!chain.isEmpty() && layout.streamChainSince(c) <= epoch) {
      for (Endpoint e : chain) {
        visits.add(new Visit(Role.STREAM, e, streams));
      }
    }
    return new ChainPlan(globalAddress, visits);
  }

  /** The deciding replica: if it holds the entry, the entry is committed. */
  public Visit last() {
    return visits.get(visits.size() - 1);
  }

  /** The visits that need a separate commit after the last one has written. */
  public List<Visit> beforeLast() {
    return visits.subList(0, visits.size() - 1);
  }

  /** True if {@code visit} is the deciding (last) visit of this plan. */
  public boolean isLast(Visit visit) {
    return last().equals(visit);
  }
}
