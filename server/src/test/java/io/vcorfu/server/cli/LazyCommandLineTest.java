package io.vcorfu.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * A one-shot run builds only the command it names ({@link VcorfuCli#forRunOf}): that command, and
 * every command under it, must read exactly as in the whole tree (the shell, completion and {@code
 * vcorfu --help} use), and a run that names no command, or a command that reads the whole tree
 * ({@code help}, {@code generate-completion}), gets the whole tree.
 */
class LazyCommandLineTest {

  @Test
  void eachCommandBuiltAloneHelpsAndNamesItselfAsInTheWholeTree() {
    CommandLine whole = VcorfuCli.newCommandLine();
    int compared = 0;
    for (Map.Entry<String, CommandLine> top : whole.getSubcommands().entrySet()) {
      if (top.getKey().equals("help") || top.getKey().equals("generate-completion")) {
        // These read the whole tree (list every command, complete every command): they get it.
        assertThat(VcorfuCli.forRunOf(top.getKey()).getSubcommands().keySet())
            .as(top.getKey())
            .isEqualTo(whole.getSubcommands().keySet());
        continue;
      }
      CommandLine alone = VcorfuCli.forRunOf(top.getKey());
      assertThat(alone.getSubcommands()).as(top.getKey()).containsOnlyKeys(top.getKey());
      compared += compare(top.getValue(), alone.getSubcommands().get(top.getKey()));
    }
    assertThat(compared).as("commands compared").isGreaterThan(20);
  }

  @Test
  void aRunOfOneCommandOfAGroupBuildsOnlyThatOneAsInTheWholeTree() {
    CommandLine whole = VcorfuCli.newCommandLine();
    int compared = 0;
    for (String group : List.of("log", "map")) {
      CommandLine wholeGroup = whole.getSubcommands().get(group);
      for (Map.Entry<String, CommandLine> sub : wholeGroup.getSubcommands().entrySet()) {
        CommandLine aloneGroup =
            VcorfuCli.forRunOf(group, sub.getKey()).getSubcommands().get(group);
        assertThat(new java.util.HashSet<>(aloneGroup.getSubcommands().values()))
            .as(group + " " + sub.getKey())
            .hasSize(1);
        assertThat(aloneGroup.getSubcommands()).containsKey(sub.getKey());
        compared += compare(sub.getValue(), aloneGroup.getSubcommands().get(sub.getKey()));
      }
      // A second word that names none of them (an option, a typo): all of them, for the group's
      // help and picocli's suggestions.
      for (String second : List.of("--help", "tial")) {
        assertThat(VcorfuCli.forRunOf(group, second).getSubcommands().get(group).getSubcommands())
            .as(group + " " + second)
            .containsOnlyKeys(wholeGroup.getSubcommands().keySet());
      }
    }
    assertThat(compared).as("commands compared").isGreaterThan(10);
  }

  @Test
  void aCommandOfAGroupBuiltAloneRefusesBadInputAsInTheWholeTree() {
    String[] run = {"map", "get", "--map"};
    java.io.StringWriter aloneErr = new java.io.StringWriter();
    CommandLine alone = VcorfuCli.forRunOf("map", "get");
    alone.setErr(new java.io.PrintWriter(aloneErr));
    java.io.StringWriter wholeErr = new java.io.StringWriter();
    CommandLine whole = VcorfuCli.newCommandLine();
    whole.setErr(new java.io.PrintWriter(wholeErr));
    assertThat(alone.execute(run)).isEqualTo(VcorfuCli.USAGE).isEqualTo(whole.execute(run));
    assertThat(aloneErr.toString()).contains("--map").isEqualTo(wholeErr.toString());
  }

  @Test
  void aRunNamingNoCommandOrHelpGetsEveryCommand() {
    int all = VcorfuCli.newCommandLine().getSubcommands().size();
    assertThat(VcorfuCli.forRunOf("--help").getSubcommands()).hasSize(all);
    assertThat(VcorfuCli.forRunOf("help").getSubcommands()).hasSize(all);
    assertThat(VcorfuCli.forRunOf("lgo").getSubcommands()).hasSize(all);
  }

  @Test
  void theVersionIsTheWholeTreesWithoutBuildingAnyCommand() {
    java.io.StringWriter alone = new java.io.StringWriter();
    CommandLine line = VcorfuCli.forRunOf("--version");
    assertThat(line.getSubcommands()).isEmpty();
    line.setOut(new java.io.PrintWriter(alone));
    java.io.StringWriter whole = new java.io.StringWriter();
    CommandLine all = VcorfuCli.newCommandLine();
    all.setOut(new java.io.PrintWriter(whole));
    assertThat(line.execute("--version")).isZero();
    assertThat(all.execute("--version")).isZero();
    assertThat(alone.toString()).startsWith("vcorfu ").isEqualTo(whole.toString());
  }

  @Test
  void aCommandBuiltAloneRefusesBadInputWithTheSameCode() {
    CommandLine alone = VcorfuCli.forRunOf("log");
    alone.setErr(new java.io.PrintWriter(new java.io.StringWriter()));
    assertThat(alone.execute("log", "tail", "--no-such-option")).isEqualTo(VcorfuCli.USAGE);
  }

  private static int compare(CommandLine whole, CommandLine alone) {
    assertThat(alone.getCommandSpec().qualifiedName())
        .isEqualTo(whole.getCommandSpec().qualifiedName());
    assertThat(alone.getUsageMessage(CommandLine.Help.Ansi.OFF))
        .as(whole.getCommandSpec().qualifiedName())
        .isEqualTo(whole.getUsageMessage(CommandLine.Help.Ansi.OFF));
    assertThat(alone.getSubcommands().keySet()).isEqualTo(whole.getSubcommands().keySet());
    int n = 1;
    for (Map.Entry<String, CommandLine> sub : whole.getSubcommands().entrySet()) {
      n += compare(sub.getValue(), alone.getSubcommands().get(sub.getKey()));
    }
    return n;
  }
}
