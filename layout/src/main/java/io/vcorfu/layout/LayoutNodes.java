package io.vcorfu.layout;

import io.vcorfu.protocol.Endpoint;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The nodes a layout names ({@link Layout#logServers}, {@link Layout#streamServers}, {@link
 * Layout#allServers}) and how many chains hold one ({@link Layout#places}). Sets are in document
 * order (segments oldest first, log chains before stream chains, each chain head first) and
 * unmodifiable; removed nodes are in no chain, so none is named.
 */
final class LayoutNodes {
  private LayoutNodes() {}

  /** How many chains, log and stream, of every segment of {@code layout} hold {@code node}. */
  static long places(Layout layout, Endpoint node) {
    return layout.segments().stream()
        .flatMap(s -> Stream.concat(s.log().stream(), s.stream().stream()))
        .filter(c -> c.contains(node))
        .count();
  }

  /** Every server in a log chain of any segment. */
  static Set<Endpoint> logServers(Layout layout) {
    Set<Endpoint> out = new LinkedHashSet<>();
    layout.segments().forEach(s -> s.log().forEach(out::addAll));
    return Collections.unmodifiableSet(out);
  }

  /** Every server in a stream chain of any segment. */
  static Set<Endpoint> streamServers(Layout layout) {
    Set<Endpoint> out = new LinkedHashSet<>();
    layout.segments().forEach(s -> s.stream().forEach(out::addAll));
    return Collections.unmodifiableSet(out);
  }

  /** The sequencer, then every server in a chain of any segment. */
  static Set<Endpoint> allServers(Layout layout) {
    // Asked on every request a node serves (is it still in the layout?), almost always of the one
    // layout the process holds: the last answer is kept for that layout object.
    Memo m = lastServers;
    if (m != null && m.layout() == layout) {
      return m.servers();
    }
    Set<Endpoint> all = computeAllServers(layout);
    lastServers = new Memo(layout, all);
    return all;
  }

  /** The last layout {@link #allServers} was asked about, and its answer. */
  private record Memo(Layout layout, Set<Endpoint> servers) {}

  private static volatile Memo lastServers;

  private static Set<Endpoint> computeAllServers(Layout layout) {
    Set<Endpoint> all = new LinkedHashSet<>();
    all.add(layout.sequencer());
    for (Segment s : layout.segments()) {
      s.log().forEach(all::addAll);
      s.stream().forEach(all::addAll);
    }
    return Collections.unmodifiableSet(all);
  }
}
