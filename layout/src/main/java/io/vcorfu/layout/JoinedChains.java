package io.vcorfu.layout;

import java.util.Set;
import java.util.TreeSet;

/**
 * The chains a node that keeps serving its other chains joined as a <em>rebuilding</em> replica
 * (see {@link MemberChanges#withMemberRebuilding}): log chains {@link #log()} and stream chains
 * {@link #stream()} (indexes among a segment's chains) of every segment that starts at or after
 * {@link #from()}, the start of the segment that opened when it joined. In every other chain it is
 * a full member: it decides and serves reads there as before.
 *
 * <p>Both sets may be empty for a member that drains a node's places in closed segments only (see
 * {@link MemberChanges#withMemberDrain}): it copies those and rebuilds no chain of the current one.
 *
 * <p>A node rebuilding with no such entry in {@link Layout#rebuildingChains()} rebuilds every chain
 * it is in (a spare, a returning node, a growing node: it served nothing before it joined).
 *
 * @param from the first global address of the segments in which it rebuilds those chains
 * @param log the indexes of the log chains it rebuilds
 * @param stream the indexes of the stream chains it rebuilds
 */
public record JoinedChains(long from, Set<Integer> log, Set<Integer> stream) {
  public JoinedChains {
    log = Set.copyOf(log);
    stream = Set.copyOf(stream);
    if (from < 0) {
      throw new LayoutException("A rebuilding replica's chains must start at 0 or later.");
    }
  }

  /**
   * True when these are the chains of {@code segment} the node rebuilds: log chain {@code index}
   * with {@code log}, else stream chain {@code index}.
   */
  public boolean covers(Segment segment, boolean log, int index) {
    return segment.start() >= from && (log ? this.log : stream).contains(index);
  }

  @Override
  public String toString() {
    return "log " + new TreeSet<>(log) + ", stream " + new TreeSet<>(stream) + " from " + from;
  }
}
