package io.vcorfu.server.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import picocli.CommandLine;

/**
 * The command reference, docs/commands.md: every command of {@code vcorfu} with its usage help, as
 * {@code vcorfu COMMAND --help} prints it, written from the picocli model of this build. The build
 * writes it to {@code server/target/vcorfu-commands.md}; a test fails when the committed
 * docs/commands.md differs from it, so the page cannot drift from the commands.
 */
public final class CommandReference {
  /** Columns of the usage help in the reference (a terminal's may differ). */
  static final int WIDTH = 100;

  private CommandReference() {}

  /** The reference as Markdown. */
  public static String markdown() {
    CommandLine root = VcorfuCli.newCommandLine();
    List<CommandLine> all = new ArrayList<>();
    collect(root, all, Collections.newSetFromMap(new IdentityHashMap<>()));
    StringBuilder b = new StringBuilder();
    b.append("# Command reference\n\n");
    b.append("Every `vcorfu` command with its options, as `vcorfu COMMAND --help` prints them. ");
    b.append("Written from the commands' definitions by the build (`server/target/");
    b.append("vcorfu-commands.md`); do not edit it by hand: `CommandReferenceTest` fails when it ");
    b.append("differs, and says how to write it again. What the commands are for, with examples: ");
    b.append("[cli.md](cli.md).\n\n");
    for (CommandLine c : all) {
      b.append("- `").append(c.getCommandSpec().qualifiedName()).append("`\n");
    }
    for (CommandLine c : all) {
      b.append("\n## ").append(c.getCommandSpec().qualifiedName()).append("\n\n```\n");
      c.setUsageHelpWidth(WIDTH);
      String usage = c.getUsageMessage(CommandLine.Help.Ansi.OFF);
      for (String line : usage.split("\n", -1)) {
        b.append(line.stripTrailing()).append('\n');
      }
      while (b.length() > 1
          && b.charAt(b.length() - 1) == '\n'
          && b.charAt(b.length() - 2) == '\n') {
        b.setLength(b.length() - 1);
      }
      b.append("```\n");
    }
    return b.toString();
  }

  private static void collect(CommandLine c, List<CommandLine> out, Set<CommandLine> seen) {
    if (!seen.add(c) || c.getCommandSpec().usageMessage().hidden()) {
      return;
    }
    out.add(c);
    for (CommandLine sub : c.getSubcommands().values()) {
      collect(sub, out, seen);
    }
  }

  /** {@code CommandReference FILE}: writes the reference to FILE, creating its directory. */
  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      throw new IllegalArgumentException("usage: CommandReference FILE");
    }
    Path out = Path.of(args[0]);
    if (out.getParent() != null) {
      Files.createDirectories(out.getParent());
    }
    Files.writeString(out, markdown(), StandardCharsets.UTF_8);
  }
}
