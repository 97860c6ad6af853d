package io.vcorfu.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Tab in {@code vcorfu shell} offers the names the command tree has at that point: commands (not
 * those refused inside the shell), subcommands, options once a word starts with {@code -}, and the
 * values an option names.
 */
class ShellCompletionTest {
  private final ShellCompletion completion =
      new ShellCompletion(VcorfuCli.newCommandLine().getCommandSpec());

  @Test
  void firstWordsAreTheCommandsAShellRunsAndExit() {
    List<String> all = completion.candidates(List.of(), "");
    assertThat(all).contains("log", "map", "cluster", "ping", "help", "exit", "quit");
    assertThat(all).doesNotContain("server", "zookeeper", "shell", "bench");
    assertThat(completion.candidates(List.of(), "ma")).containsExactly("map");
  }

  @Test
  void subcommandsOptionsAndOptionValuesFollowTheWordsBefore() {
    assertThat(completion.candidates(List.of("map"), "")).contains("put", "get", "scan");
    assertThat(completion.candidates(List.of("map"), "p")).containsExactly("put");
    assertThat(completion.candidates(List.of("map", "put"), "--ma")).containsExactly("--map");
    assertThat(completion.candidates(List.of("map", "put", "--map", "m"), "--e"))
        .containsExactly("--endpoint");
    assertThat(completion.candidates(List.of("log", "tail", "--output"), ""))
        .containsExactly("json", "text");
    assertThat(completion.candidates(List.of("help"), "cl")).containsExactly("cluster");
  }
}
