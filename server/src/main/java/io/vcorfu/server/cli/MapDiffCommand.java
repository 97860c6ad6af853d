package io.vcorfu.server.cli;

import static io.vcorfu.server.cli.MapCommands.escape;
import static io.vcorfu.server.cli.MapCommands.stored;
import static io.vcorfu.server.cli.MapCommands.text;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vcorfu.collections.CSMRMap;
import io.vcorfu.collections.MapDiff;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.runtime.ObjectOpenException;
import io.vcorfu.runtime.VCorfuRuntime;
import java.io.PrintWriter;
import java.util.Map;
import java.util.TreeMap;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code vcorfu map diff --map M --from A [--to B]}: what differs between two versions of a map
 * (see {@link CSMRMap#diff(long, long)}); {@code vcorfu map diff --map M --against N}: what map
 * {@code M} has that map {@code N} has not, now (two forks, or a fork and its parent: see {@link
 * CSMRMap#diff(CSMRMap)}). One line per key in the order of the keys' text.
 */
@Command(
    name = "diff",
    mixinStandardHelpOptions = true,
    description =
        "What differs between the map as of global address --from and as of --to (default:"
            + " now), one line per key,"
            + " in key order: + KEY VALUE (added), - KEY VALUE (removed), ~ KEY OLD -> NEW"
            + " (changed); --output json gives each in fields. --from -1 starts from the empty map."
            + " Read from the updates between the two versions; a range reaching below the map's"
            + " retention fails as trimmed. With --against MAP2 instead of --from: what --map has"
            + " that MAP2 has not, both now (+ only in --map, - only in MAP2, ~ MAP2's value ->"
            + " --map's); for forks of one map only the keys changed since their common base are"
            + " compared.")
final class MapDiffCommand extends MapCommands.MapCommand {
  @Option(
      names = "--from",
      description = "The older version: a global address (-1: the map before any write).")
  Long from;

  @Option(
      names = "--against",
      description = "Another map (a fork, the parent): diff --map against it, now, not --from.")
  String against;

  @Option(
      names = "--to",
      description = "The newer version: a global address (default: now, the current snapshot).")
  Long to;

  @Override
  void check() {
    if (against != null) {
      Flags.name(spec, "--against", against);
      if (from != null || to != null) {
        throw new ParameterException(
            spec.commandLine(), "--against compares two maps now: leave out --from and --to");
      }
      return;
    }
    if (from == null) {
      throw new ParameterException(
          spec.commandLine(), "give --from G (two versions of --map) or --against MAP2");
    }
    if (from < -1) {
      throw new ParameterException(
          spec.commandLine(), "--from must be -1 (before any write) or more, not " + from);
    }
    if (to != null && to < from) {
      throw new ParameterException(
          spec.commandLine(), "--to must be at or above --from (" + from + "), not " + to);
    }
  }

  /** The current snapshot: what a transaction that writes nothing answers. */
  private static long now(VCorfuRuntime rt) {
    rt.TXBegin();
    return rt.TXEnd();
  }

  @Override
  void run(VCorfuRuntime rt, CSMRMap<String, String> m, PrintWriter out) {
    print(
        against != null ? stored(m).diff(stored(other(rt))) : versions(rt, m), output.json(), out);
  }

  /** The map called --against. */
  private CSMRMap<String, String> other(VCorfuRuntime rt) {
    try {
      return CSMRMap.open(rt, against);
    } catch (ObjectOpenException e) {
      throw new NotFoundException("map '" + against + "' (--against) does not exist");
    }
  }

  private MapDiff<Object, Object> versions(VCorfuRuntime rt, CSMRMap<String, String> m) {
    long upTo = to != null ? to : now(rt);
    if (upTo < from) {
      throw new IllegalArgumentException(
          "--from "
              + from
              + " is past the log's current snapshot "
              + upTo
              + "; give an earlier one");
    }
    MapDiff<Object, Object> diff;
    try {
      diff = stored(m).diff(from, upTo);
    } catch (TrimmedException t) {
      throw new IllegalStateException(
          "map '"
              + map
              + "' no longer holds every version after "
              + from
              + ": part of the range was trimmed (below the map's retention); diff from a later"
              + " --from");
    }
    return diff;
  }

  /**
   * Prints {@code diff} one line per key in the order of the keys' text: {@code + KEY VALUE},
   * {@code - KEY VALUE}, {@code ~ KEY OLD -> NEW}, or with {@code json} one object each (also
   * {@code map merge}'s lines).
   */
  static void print(MapDiff<Object, Object> diff, boolean json, PrintWriter out) {
    TreeMap<String, Object[]> lines = new TreeMap<>();
    for (Map.Entry<Object, Object> e : diff.added().entrySet()) {
      lines.put(text(e.getKey()), new Object[] {"added", null, e.getValue()});
    }
    for (Map.Entry<Object, Object> e : diff.removed().entrySet()) {
      lines.put(text(e.getKey()), new Object[] {"removed", e.getValue(), null});
    }
    for (Map.Entry<Object, MapDiff.ValueChange<Object>> e : diff.changed().entrySet()) {
      MapDiff.ValueChange<Object> c = e.getValue();
      lines.put(text(e.getKey()), new Object[] {"changed", c.before(), c.after()});
    }
    for (Map.Entry<String, Object[]> line : lines.entrySet()) {
      String change = (String) line.getValue()[0];
      Object before = line.getValue()[1];
      Object after = line.getValue()[2];
      if (json) {
        ObjectNode n = Output.mapper().createObjectNode().put("key", line.getKey());
        n.put("change", change);
        if (before != null) {
          n.put("before", text(before));
        }
        if (after != null) {
          n.put("after", text(after));
        }
        out.println(Output.line(n));
        continue;
      }
      String key = escape(line.getKey());
      switch (change) {
        case "added" -> out.println("+ " + key + " " + escape(text(after)));
        case "removed" -> out.println("- " + key + " " + escape(text(before)));
        default ->
            out.println("~ " + key + " " + escape(text(before)) + " -> " + escape(text(after)));
      }
    }
  }
}
