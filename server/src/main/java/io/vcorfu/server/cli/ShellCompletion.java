package io.vcorfu.server.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * What Tab offers in {@code vcorfu shell}, read from the command tree itself: the names of the
 * subcommands of the command the words so far reach, its option names once the word starts with
 * {@code -}, and the values an option names (such as {@code text} and {@code json}) after it. Keeps
 * nothing but the tree it reads.
 */
final class ShellCompletion {
  private final CommandSpec root;

  ShellCompletion(CommandSpec root) {
    this.root = root;
  }

  /** The words that may follow {@code before}, starting with {@code partial}, sorted. */
  List<String> candidates(List<String> before, String partial) {
    CommandSpec at = root;
    for (String word : before) {
      CommandLine sub = at.subcommands().get(word);
      if (sub != null) {
        at = sub.getCommandSpec();
      }
    }
    TreeSet<String> offered = new TreeSet<>();
    OptionSpec valueOf = before.isEmpty() ? null : at.findOption(before.get(before.size() - 1));
    if (valueOf != null && valueOf.arity().max() > 0) {
      if (valueOf.completionCandidates() != null) {
        valueOf.completionCandidates().forEach(offered::add);
      }
    } else if (partial.startsWith("-")) {
      for (OptionSpec o : at.options()) {
        if (!o.hidden()) {
          offered.addAll(List.of(o.names()));
        }
      }
    } else if (at.userObject() instanceof CommandLine.HelpCommand) {
      names(root, offered);
    } else {
      names(at, offered);
      if (at == root) {
        offered.addAll(ShellCommand.EXIT);
      }
    }
    List<String> out = new ArrayList<>();
    for (String c : offered) {
      if (c.startsWith(partial)) {
        out.add(c);
      }
    }
    return out;
  }

  /** The subcommands of {@code spec} a shell line may name. */
  private static void names(CommandSpec spec, TreeSet<String> into) {
    for (String name : spec.subcommands().keySet()) {
      if (spec.parent() != null || !ShellCommand.REFUSED.containsKey(name)) {
        into.add(name);
      }
    }
  }
}
