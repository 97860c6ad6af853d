package io.vcorfu.layout;

import io.vcorfu.protocol.Endpoint;
import java.util.List;

/**
 * Where a layout's sequencer sits among the replicas, for {@link Layout#sequencerHostsEveryChain},
 * {@link Layout#sequencerDrivesAppends} and {@link Layout#sequencerHoldsLog}: whether the node that
 * issues tokens can take an append whole, and whether its own log replica holds every entry that
 * can have committed at a range of addresses. A rebuilding replica serves nothing, so the sequencer
 * counts in a chain only where it is a serving replica of it.
 */
final class SequencerPlacement {
  private SequencerPlacement() {}

  /**
   * The last layout {@link #hostsEveryChain} and {@link #drivesAppends} were asked about, and both
   * answers: a sequencer node asks on every append it takes, almost always of the one layout it
   * holds.
   */
  private record Memo(Layout layout, boolean hostsEveryChain, boolean drivesAppends) {}

  private static volatile Memo last;

  private static Memo memo(Layout layout) {
    Memo m = last;
    if (m == null || m.layout() != layout) {
      boolean hosts = computeHostsEveryChain(layout);
      m = new Memo(layout, hosts, !hosts && computeDrivesAppends(layout));
      last = m;
    }
    return m;
  }

  /** True when the sequencer is the only replica of every chain of the current segment. */
  static boolean hostsEveryChain(Layout layout) {
    return memo(layout).hostsEveryChain();
  }

  /**
   * True when the sequencer serves in every log chain of the current segment and other nodes hold
   * copies too.
   */
  static boolean drivesAppends(Layout layout) {
    return memo(layout).drivesAppends();
  }

  private static boolean computeHostsEveryChain(Layout layout) {
    Segment current = layout.currentSegment();
    List<Endpoint> alone = List.of(layout.sequencer());
    return current.log().stream().allMatch(alone::equals)
        && current.stream().stream().allMatch(alone::equals);
  }

  private static boolean computeDrivesAppends(Layout layout) {
    Segment current = layout.currentSegment();
    Endpoint sequencer = layout.sequencer();
    for (int i = 0; i < current.log().size(); i++) {
      if (!current.log().get(i).contains(sequencer)
          || layout.rebuildsIn(sequencer, current, true, i)) {
        return false;
      }
    }
    return true;
  }

  /**
   * True when the sequencer is a serving replica of the log chain of every address in {@code [from,
   * to]} (an empty range holds); false when the range reaches below the first segment.
   */
  static boolean holdsLog(Layout layout, long from, long to) {
    List<Segment> segments = layout.segments();
    Endpoint sequencer = layout.sequencer();
    long at = Math.max(from, segments.get(0).start());
    if (from < segments.get(0).start() && to >= from) {
      return false;
    }
    while (at <= to) {
      Segment s = layout.segmentOf(at);
      long end = s.isOpen() ? to : Math.min(to, s.end() - 1);
      int chains = s.log().size();
      // One address per chain is enough: the addresses of a segment go round its log chains.
      for (long a = at; a <= Math.min(end, at + chains - 1); a++) {
        int i = (int) (a % chains);
        if (!s.log().get(i).contains(sequencer) || layout.rebuildsIn(sequencer, s, true, i)) {
          return false;
        }
      }
      at = end + 1;
    }
    return true;
  }
}
