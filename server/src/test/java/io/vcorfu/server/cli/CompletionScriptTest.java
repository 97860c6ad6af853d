package io.vcorfu.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bash completion script: the build writes it ({@code target/vcorfu-completion.bash}) for this
 * build's commands, {@code vcorfu generate-completion} prints the same, and bash completes
 * commands, subcommands and options with it.
 */
class CompletionScriptTest {
  private static final Path BUILT = Path.of("target", "vcorfu-completion.bash");

  @TempDir Path tmp;

  @Test
  void theBuildWritesTheScriptOfThisBuildsCommands() throws IOException {
    assertThat(BUILT).as("written by the build before the tests run").exists();
    assertThat(Files.readString(BUILT, StandardCharsets.UTF_8)).isEqualTo(CompletionScript.bash());
  }

  @Test
  void generateCompletionPrintsTheSameScript() {
    CliRun r = CliRun.of("generate-completion");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out().strip()).isEqualTo(CompletionScript.bash().strip());
  }

  @Test
  void bashCompletesCommandsSubcommandsAndOptions() throws Exception {
    Path script = tmp.resolve("vcorfu-completion.bash");
    CompletionScript.main(new String[] {script.toString()});
    assertThat(complete(script, "clu")).containsExactly("cluster");
    assertThat(complete(script, "cluster", ""))
        .contains("init", "status", "add-node", "remove-node", "replace-node");
    assertThat(complete(script, "log", "")).contains("append", "read", "trim");
    assertThat(complete(script, "server", "--metrics-p")).containsExactly("--metrics-port");
  }

  /** What bash's completion offers for {@code vcorfu WORDS...} with the cursor after the last. */
  private static List<String> complete(Path script, String... words) throws Exception {
    String driver =
        "source \"$1\"; shift\n"
            + "COMP_WORDS=(vcorfu \"$@\"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))\n"
            + "COMP_LINE=\"${COMP_WORDS[*]}\"; COMP_POINT=${#COMP_LINE}\n"
            + "_complete_vcorfu vcorfu \"${COMP_WORDS[-1]}\" \"${COMP_WORDS[-2]}\" 2>/dev/null\n"
            + "printf '%s\\n' \"${COMPREPLY[@]}\"\n";
    List<String> command =
        new ArrayList<>(List.of("bash", "-c", driver, "bash", script.toString()));
    command.addAll(List.of(words));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return out.lines().filter(l -> !l.isBlank()).map(String::strip).toList();
  }
}
