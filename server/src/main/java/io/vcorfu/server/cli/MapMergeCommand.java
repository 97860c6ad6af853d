package io.vcorfu.server.cli;

import static io.vcorfu.server.cli.MapCommands.escape;
import static io.vcorfu.server.cli.MapCommands.stored;
import static io.vcorfu.server.cli.MapCommands.text;

import com.fasterxml.jackson.databind.node.ArrayNode;
import io.vcorfu.collections.CSMRMap;
import io.vcorfu.collections.MergePolicy;
import io.vcorfu.collections.MergeRefusedException;
import io.vcorfu.collections.MergeResult;
import io.vcorfu.runtime.ObjectOpenException;
import io.vcorfu.runtime.VCorfuRuntime;
import java.io.PrintWriter;
import java.util.TreeSet;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code vcorfu map merge --map M --from S [--on-conflict source|target|fail]}: merges map {@code
 * S} into map {@code M} three-way through their common base (see {@link CSMRMap#merge(CSMRMap,
 * MergePolicy)}) and prints what changed in {@code M}, as {@code map diff} does, then one summary
 * line.
 */
@Command(
    name = "merge",
    mixinStandardHelpOptions = true,
    description =
        "Merges the map --from into --map through their common base (the last merge between"
            + " them, else the version where their forks meet), in one transaction: keys only"
            + " --from changed since the base take its value (or are removed), keys only --map"
            + " changed are kept, keys both changed to different values are conflicts, settled by"
            + " --on-conflict: source (--from's value), target (--map's) or fail (the default:"
            + " one line naming the keys, exit 1, nothing written). Prints each key --map"
            + " changed, as map diff does (+ KEY VALUE, - KEY VALUE, ~ KEY OLD -> NEW), then"
            + " merged FROM at G into MAP (base BASE at B): N changed, C conflicts, commit G2."
            + " The merge is recorded: merging the same map again applies only what changed"
            + " since. Maps that share no history are refused (exit 2), nothing written.")
final class MapMergeCommand extends MapCommands.MapCommand {
  @Option(
      names = "--from",
      required = true,
      description = "The map to merge into --map (a fork of it, its parent, another fork).")
  String from;

  @Option(
      names = "--on-conflict",
      paramLabel = "source|target|fail",
      description = "How a key both maps changed is settled (default: fail).")
  String onConflict = "fail";

  @Override
  void check() {
    Flags.name(spec, "--from", from);
    policy();
  }

  private MergePolicy policy() {
    return switch (onConflict) {
      case "source" -> MergePolicy.SOURCE_WINS;
      case "target" -> MergePolicy.TARGET_WINS;
      case "fail" -> MergePolicy.FAIL;
      default ->
          throw new ParameterException(
              spec.commandLine(),
              "--on-conflict is source, target or fail, not '" + onConflict + "'");
    };
  }

  @Override
  void run(VCorfuRuntime rt, CSMRMap<String, String> m, PrintWriter out) {
    CSMRMap<String, String> source;
    try {
      source = CSMRMap.open(rt, from);
    } catch (ObjectOpenException e) {
      throw new NotFoundException("map '" + from + "' (--from) does not exist");
    }
    MergeResult<Object, Object> r;
    try {
      r = stored(m).merge(stored(source), policy());
    } catch (MergeRefusedException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    MapDiffCommand.print(r.applied(), output.json(), out);
    int changed = r.applied().added().size() + r.applied().removed().size();
    changed += r.applied().changed().size();
    TreeSet<String> conflicts = new TreeSet<>();
    r.conflicts().forEach(k -> conflicts.add(text(k)));
    if (output.json()) {
      var n =
          Output.mapper()
              .createObjectNode()
              .put("map", m.name())
              .put("from", r.source())
              .put("sourceVersion", r.sourceVersion())
              .put("base", r.baseMap())
              .put("baseVersion", r.baseVersion())
              .put("changed", changed)
              .put("commit", r.commit());
      ArrayNode keys = n.putArray("conflicts");
      conflicts.forEach(keys::add);
      out.println(Output.line(n));
      return;
    }
    StringBuilder line =
        new StringBuilder()
            .append("merged ")
            .append(r.source())
            .append(" at ")
            .append(r.sourceVersion())
            .append(" into ")
            .append(m.name())
            .append(" (base ")
            .append(r.baseMap())
            .append(" at ")
            .append(r.baseVersion())
            .append("): ")
            .append(changed)
            .append(" changed, ")
            .append(conflicts.size())
            .append(conflicts.size() == 1 ? " conflict" : " conflicts");
    if (!conflicts.isEmpty()) {
      line.append(" (").append(onConflict).append(" won: ");
      conflicts.forEach(k -> line.append(escape(k)).append(' '));
      line.setLength(line.length() - 1);
      line.append(')');
    }
    out.println(line.append(", commit ").append(r.commit()));
  }
}
