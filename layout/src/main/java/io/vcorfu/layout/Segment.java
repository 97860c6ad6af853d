package io.vcorfu.layout;

import io.vcorfu.protocol.Endpoint;
import java.util.List;

/**
 * A range of global addresses {@code [start, end)} and the chains serving it. {@code end == -1}
 * means open-ended (only the last segment of a layout).
 *
 * @param log the log chains; a global address {@code g} goes to chain {@code g mod log.size()}
 * @param stream the stream chains; a stream {@code s} goes to chain {@code s.placementHash() mod
 *     stream.size()}
 */
public record Segment(long start, long end, List<List<Endpoint>> log, List<List<Endpoint>> stream) {
  /** The {@code end} of an open-ended segment. */
  public static final long OPEN = -1;

  public Segment {
    log = copyChains(log);
    stream = copyChains(stream);
  }

  private static List<List<Endpoint>> copyChains(List<List<Endpoint>> chains) {
    if (chains == null) {
      return List.of();
    }
    for (List<Endpoint> chain : chains) {
      if (chain == null || chain.stream().anyMatch(java.util.Objects::isNull)) {
        throw new LayoutException("A segment chain must not be null or contain a null endpoint.");
      }
    }
    return chains.stream().map(List::copyOf).toList();
  }

  // equals and hashCode are written out, as Endpoint's are (no invokedynamic bootstrap at first
  // use).
  @Override
  public boolean equals(Object o) {
    return o instanceof Segment s
        && start == s.start
        && end == s.end
        && log.equals(s.log)
        && stream.equals(s.stream);
  }

  @Override
  public int hashCode() {
    return ((Long.hashCode(start) * 31 + Long.hashCode(end)) * 31 + log.hashCode()) * 31
        + stream.hashCode();
  }

  /** True if this segment has no end. */
  public boolean isOpen() {
    return end == OPEN;
  }

  /** True if {@code globalAddress} falls in this segment. */
  public boolean contains(long globalAddress) {
    return globalAddress >= start && (isOpen() || globalAddress < end);
  }
}
