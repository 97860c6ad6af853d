package io.vcorfu.server;

import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.Endpoint;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The last layout changes a node adopted, each summed up for people (the status page): sequencer
 * moves, nodes removed and added, rebuilding replicas, new segments. Thread-safe.
 */
final class AdoptedLayouts {
  /** One layout change: when it was adopted, the new epoch, and what changed. */
  public record Change(Instant at, long epoch, String what) {}

  private final int kept;
  private final Deque<Change> changes = new ArrayDeque<>();

  /** Keeps the last {@code kept} changes. */
  AdoptedLayouts(int kept) {
    this.kept = kept;
  }

  /** The changes kept, newest first. */
  synchronized List<Change> recent() {
    return List.copyOf(changes);
  }

  /** Records the change from {@code before} (null: none yet) to {@code after}. */
  void record(Layout before, Layout after) {
    Change change = new Change(Instant.now(), after.epoch(), what(before, after));
    synchronized (this) {
      changes.addFirst(change);
      while (changes.size() > kept) {
        changes.removeLast();
      }
    }
  }

  private static String what(Layout before, Layout after) {
    if (before == null) {
      return "first layout";
    }
    List<String> what = new ArrayList<>();
    if (!before.sequencer().equals(after.sequencer())) {
      what.add("sequencer " + before.sequencer() + " -> " + after.sequencer());
    }
    Set<Endpoint> gone = new LinkedHashSet<>(before.allServers());
    gone.removeAll(after.allServers());
    if (!gone.isEmpty()) {
      what.add("removed " + gone);
    }
    Set<Endpoint> added = new LinkedHashSet<>(after.allServers());
    added.removeAll(before.allServers());
    if (!added.isEmpty()) {
      what.add("added " + added);
    }
    if (!after.rebuilding().keySet().equals(before.rebuilding().keySet())) {
      what.add("rebuilding " + after.rebuilding().keySet());
    }
    if (after.segments().size() != before.segments().size()) {
      what.add("new segment at " + after.currentSegment().start());
    }
    return what.isEmpty() ? "sealed" : String.join("; ", what);
  }
}
