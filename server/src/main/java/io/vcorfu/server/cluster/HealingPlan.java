package io.vcorfu.server.cluster;

import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LayoutChanges;
import io.vcorfu.layout.MemberChanges;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.proto.PingResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.LongFunction;

/**
 * The manager's healing decisions: from the agreed layout and what the probes say, the one layout
 * change to make next, if any. It decides only; {@link ClusterManager} seals, commits and retries
 * (every step is a layout change sealed like a removal), so a wrong guess here costs a wasted
 * change, never safety: each change is computed by {@link LayoutChanges} or {@link MemberChanges},
 * which refuse what the layout does not allow.
 *
 * <p>In order of priority, one step per round:
 *
 * <ol>
 *   <li>promote a rebuilding replica whose copy finished against the agreed epoch;
 *   <li>while a chain of the current segment has fewer than R replicas: give an empty stream chain
 *       to an answering spare or removed node that has confirmed it follows the agreed layout (most
 *       recently removed first; nodes that left on request never), else join that node to the short
 *       chains as a rebuilding replica; with no such node, once the chains have been short for
 *       {@code memberHealDelay}, join a member to them ({@link MemberChanges#withMemberRebuilding}:
 *       the answering node with the fewest places that can join any; ties: the one that joins the
 *       most, then not the sequencer);
 *   <li>otherwise, drain the first node leaving on request onto the others, one node at a time
 *       ({@link MemberChanges#withMemberDrain}: the answering node that takes the most of its
 *       places; ties: the fewest places), and remove it once it holds none ({@link
 *       MemberChanges#drained}).
 * </ol>
 *
 * Nothing is joined while another replica rebuilds (promotions aside). Not thread-safe: the
 * manager's thread owns it.
 */
final class HealingPlan {
  /**
   * One step: {@code what} names it for failures, {@code why} says it for the log (with the epoch
   * change), and {@code change} computes the layout from the sealed log tail.
   */
  record Step(String what, String why, LongFunction<Layout> change) {}

  /** What the manager's probes say about the nodes. */
  interface Probes {
    /** True when {@code node} answered lately as a node of this cluster. */
    boolean answering(Endpoint node);

    /** The last answer of {@code node}, or null. */
    PingResponse lastAnswer(Endpoint node);
  }

  private final Duration memberHealDelay;

  /** When chains of the current segment were first seen short, with none short since; or null. */
  private Long shortSince;

  HealingPlan(Duration memberHealDelay) {
    this.memberHealDelay = memberHealDelay;
  }

  /** The next step for {@code layout} at {@code now} (nanoTime), or null when none is due. */
  Step next(Layout layout, long now, Probes probes) {
    String epochs = " (epoch " + layout.epoch() + " -> " + (layout.epoch() + 1) + ")";
    for (Endpoint node : layout.rebuilding().keySet()) {
      PingResponse answer = probes.lastAnswer(node);
      if (answer != null
          && answer.getRebuild().getDone()
          && answer.getRebuild().getEpoch() == layout.epoch()) {
        return new Step(
            "promoting " + node,
            node
                + " finished rebuilding ("
                + answer.getRebuild().getEntriesCopied()
                + " slots copied, "
                + answer.getRebuild().getBytesCopied()
                + " bytes); promoting it"
                + epochs,
            tail -> LayoutChanges.promoted(layout, node, tail + 1));
      }
    }
    List<String> lacking = LayoutChanges.underReplicated(layout);
    if (lacking.isEmpty()) {
      shortSince = null;
      return drainStep(layout, probes, epochs);
    }
    if (shortSince == null) {
      shortSince = now;
    }
    List<Endpoint> candidates = new ArrayList<>(layout.spares());
    List<Endpoint> removed = new ArrayList<>(layout.removed());
    removed.removeAll(layout.retired()); // they left on request
    Collections.reverse(removed); // the most recently removed first
    candidates.addAll(removed);
    // A returning node joins only once it follows the agreed layout again: until then it would
    // refuse every write through the chains it joins (a node resumed after a pause reconnects to
    // ZooKeeper first).
    Endpoint node =
        candidates.stream()
            .filter(n -> probes.answering(n) && confirmed(probes.lastAnswer(n)))
            .findFirst()
            .orElse(null);
    if (node == null) {
      Step member = memberStep(layout, now, probes, lacking, epochs);
      return member != null ? member : drainStep(layout, probes, epochs);
    }
    List<Integer> empty = LayoutChanges.emptyStreamChains(layout);
    if (!empty.isEmpty()) {
      // A stream chain with no replica first: its streams are read from the log until taken up.
      return new Step(
          "taking up stream chains " + empty + " by " + node,
          "stream chains "
              + empty
              + " have no replica; "
              + node
              + " answers and takes them up"
              + epochs,
          tail -> LayoutChanges.withTakeover(layout, node, tail + 1));
    }
    return new Step(
        "joining " + node,
        "chains "
            + lacking
            + " lack a replica; "
            + node
            + " answers and joins them as a"
            + " rebuilding replica"
            + epochs,
        tail -> LayoutChanges.withRebuilding(layout, node, tail + 1));
  }

  /** True when {@code answer} says its node confirmed lately that it follows the agreed layout. */
  private static boolean confirmed(PingResponse answer) {
    return answer != null && answer.getLayoutConfirmed();
  }

  /** Healing onto a member, once the chains have been short for the delay; null when not due. */
  private Step memberStep(
      Layout layout, long now, Probes probes, List<String> lacking, String epochs) {
    // The delay gives a failed node time to come back and copy only what it missed.
    if (!layout.rebuilding().isEmpty() || now - shortSince < memberHealDelay.toNanos()) {
      return null;
    }
    Endpoint best = null;
    List<String> bestJoins = List.of();
    long bestPlaces = Long.MAX_VALUE;
    for (Endpoint e : layout.allServers()) {
      if (!probes.answering(e) || layout.draining().contains(e)) {
        continue; // a draining node takes no more places
      }
      List<String> joins = MemberChanges.memberJoins(layout, e);
      if (joins.isEmpty()) {
        continue;
      }
      long places = placesInCurrent(layout, e);
      boolean better =
          places < bestPlaces
              || (places == bestPlaces
                  && (joins.size() > bestJoins.size()
                      || (joins.size() == bestJoins.size() && best.equals(layout.sequencer()))));
      if (better) {
        best = e;
        bestJoins = joins;
        bestPlaces = places;
      }
    }
    if (best == null) {
      return null;
    }
    Endpoint member = best;
    return new Step(
        "joining member " + member + " to " + bestJoins,
        "chains "
            + lacking
            + " have lacked a replica for "
            + java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(now - shortSince)
            + " ms and no spare or returning node answers; "
            + member
            + ", a member of other chains, joins "
            + bestJoins
            + " as a rebuilding replica"
            + epochs,
        tail -> MemberChanges.withMemberRebuilding(layout, member, tail + 1));
  }

  /** The next step of a drain onto the other nodes; null when none is due. */
  private static Step drainStep(Layout layout, Probes probes, String epochs) {
    if (layout.draining().isEmpty() || !layout.rebuilding().isEmpty()) {
      return null;
    }
    Endpoint old = layout.draining().get(0);
    boolean holds = layout.segments().stream().anyMatch(s -> MemberChanges.holdsAPlace(s, old));
    if (!holds) {
      return new Step(
          "removing drained " + old,
          old + " holds no place any more; it leaves the cluster" + epochs,
          tail -> MemberChanges.drained(layout, old, tail + 1));
    }
    Endpoint best = null;
    List<String> bestTakes = List.of();
    long bestPlaces = Long.MAX_VALUE;
    for (Endpoint e : layout.allServers()) {
      if (e.equals(old) || layout.draining().contains(e) || !probes.answering(e)) {
        continue;
      }
      List<String> takes = MemberChanges.drainTakes(layout, e, old);
      long places = placesInCurrent(layout, e);
      if (takes.size() > bestTakes.size()
          || (!takes.isEmpty() && takes.size() == bestTakes.size() && places < bestPlaces)) {
        best = e;
        bestTakes = takes;
        bestPlaces = places;
      }
    }
    if (best == null) {
      return null;
    }
    Endpoint member = best;
    return new Step(
        "draining " + old + " onto " + member,
        "draining "
            + old
            + ": "
            + member
            + " takes its places "
            + bestTakes
            + " as a rebuilding replica"
            + epochs,
        tail -> MemberChanges.withMemberDrain(layout, member, old, tail + 1));
  }

  /** How many chains of {@code layout}'s current segment hold {@code node}. */
  private static long placesInCurrent(Layout layout, Endpoint node) {
    return java.util.stream.Stream.concat(
            layout.currentSegment().log().stream(), layout.currentSegment().stream().stream())
        .filter(c -> c.contains(node))
        .count();
  }
}
