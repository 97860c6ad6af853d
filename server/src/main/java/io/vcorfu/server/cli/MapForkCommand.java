package io.vcorfu.server.cli;

import io.vcorfu.collections.CSMRMap;
import io.vcorfu.collections.ForkRefusedException;
import io.vcorfu.runtime.VCorfuRuntime;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code vcorfu map fork --map M --name F [--at G]}: creates the fork {@code F} of map {@code M} as
 * of a version (see {@link CSMRMap#fork}) and prints it: {@code F forked from M at G}.
 */
@Command(
    name = "fork",
    mixinStandardHelpOptions = true,
    description =
        "Creates the map --name as a fork of --map as of global address --at (default: now):"
            + " a writable map holding --map's state at that version, then its own changes,"
            + " which go to its own streams only (copy-on-write: nothing of --map is copied)."
            + " Use the fork by its name like any map; fork a fork alike. Prints"
            + " NAME forked from MAP at G (--output json: map, parent, base). A name that is"
            + " taken, or a version past the log's tail or trimmed from --map's history, is"
            + " refused and nothing is written.")
final class MapForkCommand extends MapCommands.MapCommand {
  @Option(names = "--name", required = true, description = "The fork's name (not taken yet).")
  String name;

  @Option(
      names = "--at",
      description = "The version of --map to fork: a global address (-1: empty; default: now).")
  Long at;

  @Override
  void check() {
    Flags.name(spec, "--name", name);
    if (at != null && at < -1) {
      throw new ParameterException(
          spec.commandLine(), "--at must be -1 (before any write) or more, not " + at);
    }
  }

  @Override
  void run(VCorfuRuntime rt, CSMRMap<String, String> m, PrintWriter out) {
    CSMRMap<String, String> fork;
    try {
      fork = at != null ? m.fork(name, at) : m.fork(name);
    } catch (ForkRefusedException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    long base = fork.forkBase().orElseThrow().version();
    if (output.json()) {
      out.println(
          Output.line(
              Output.mapper()
                  .createObjectNode()
                  .put("map", fork.name())
                  .put("parent", m.name())
                  .put("base", base)));
    } else {
      out.println(fork.name() + " forked from " + m.name() + " at " + base);
    }
  }
}
