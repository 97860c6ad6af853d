package io.vcorfu.server.cluster;

import io.vcorfu.layout.Layout;
import io.vcorfu.layout.Segment;
import io.vcorfu.layout.Versioned;
import io.vcorfu.protocol.Endpoint;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Checks a history of the agreed layout (the znode's versions as a watch saw them, in order) for
 * what cluster mode promises: each version is a valid layout (the watch decodes nothing else), and
 * each one follows from the one before by removing nodes and raising the epoch, at least once per
 * commit.
 */
final class LayoutHistory {
  private LayoutHistory() {}

  /**
   * Asserts that every layout of {@code history} has at least {@code r} serving replicas in every
   * chain of its current segment.
   */
  static void assertEveryChainServedByAtLeast(List<Versioned<Layout>> history, int r) {
    for (Versioned<Layout> v : history) {
      Layout l = v.value();
      io.vcorfu.layout.Segment open = l.currentSegment();
      for (int k = 0; k < open.log().size() + open.stream().size(); k++) {
        boolean log = k < open.log().size();
        int index = log ? k : k - open.log().size();
        org.assertj.core.api.Assertions.assertThat(l.serving(open, log, index))
            .as(
                "serving replicas of %s chain %d at epoch %d",
                log ? "log" : "stream", index, l.epoch())
            .hasSizeGreaterThanOrEqualTo(r);
      }
    }
  }

  /** What is wrong with {@code history}; empty when it is a chain of valid changes. */
  static List<String> problems(List<Versioned<Layout>> history) {
    List<String> out = new ArrayList<>();
    for (int i = 1; i < history.size(); i++) {
      Versioned<Layout> before = history.get(i - 1);
      Versioned<Layout> after = history.get(i);
      String at = "version " + before.version() + " -> " + after.version() + ": ";
      for (String p : step(before, after)) {
        out.add(at + p);
      }
    }
    return out;
  }

  private static List<String> step(Versioned<Layout> before, Versioned<Layout> after) {
    List<String> out = new ArrayList<>();
    Layout prev = before.value();
    Layout next = after.value();
    long commits = after.version() - before.version();
    if (commits <= 0) {
      out.add("the version did not grow");
    }
    if (next.epoch() - prev.epoch() < Math.max(1, commits)) {
      out.add(
          "epoch "
              + prev.epoch()
              + " -> "
              + next.epoch()
              + " over "
              + commits
              + " commits (every commit raises it)");
    }
    if (!next.clusterId().equals(prev.clusterId()) || next.replication() != prev.replication()) {
      out.add("cluster or replication changed");
    }
    if (next.removed().size() < prev.removed().size()
        || !next.removed().subList(0, prev.removed().size()).equals(prev.removed())) {
      out.add("removed " + prev.removed() + " -> " + next.removed() + " (it only grows)");
      return out;
    }
    Set<Endpoint> gone =
        new HashSet<>(next.removed().subList(prev.removed().size(), next.removed().size()));
    Set<Endpoint> expected = new HashSet<>(prev.allServers());
    expected.removeAll(gone);
    if (!expected.equals(new HashSet<>(next.allServers()))) {
      out.add("servers " + prev.allServers() + " -> " + next.allServers() + ", removed " + gone);
    }
    if (!gone.contains(prev.sequencer()) && !next.sequencer().equals(prev.sequencer())) {
      out.add("the sequencer moved from " + prev.sequencer() + ", which was not removed");
    }
    if (next.segments().get(0).start() != prev.segments().get(0).start()) {
      out.add("the log's first segment moved");
    }
    for (Segment s : next.segments()) {
      Segment was = prev.segmentOf(s.start());
      if (!s.log().equals(without(was.log(), gone))
          || !s.stream().equals(without(was.stream(), gone))) {
        out.add(
            "the chains of the segment at "
                + s.start()
                + " are not those of epoch "
                + prev.epoch()
                + " without "
                + gone
                + ": "
                + s);
      }
    }
    return out;
  }

  private static List<List<Endpoint>> without(List<List<Endpoint>> chains, Set<Endpoint> gone) {
    List<List<Endpoint>> out = new ArrayList<>();
    for (List<Endpoint> chain : chains) {
      out.add(chain.stream().filter(e -> !gone.contains(e)).toList());
    }
    return out;
  }
}
