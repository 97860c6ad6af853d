package io.vcorfu.server.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.AutoComplete;

/**
 * Writes the bash completion script of the {@code vcorfu} command to a file; the build runs it, so
 * every build carries a script that matches its commands ({@code
 * server/target/vcorfu-completion.bash}). The same script is printed by {@code vcorfu
 * generate-completion}.
 */
public final class CompletionScript {
  private CompletionScript() {}

  /** The bash completion script of {@code vcorfu}, every command and option of this build. */
  public static String bash() {
    return AutoComplete.bash("vcorfu", VcorfuCli.newCommandLine());
  }

  /** {@code CompletionScript FILE}: writes the script to FILE, creating its directory. */
  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      throw new IllegalArgumentException("usage: CompletionScript FILE");
    }
    Path out = Path.of(args[0]);
    if (out.getParent() != null) {
      Files.createDirectories(out.getParent());
    }
    Files.writeString(out, bash(), StandardCharsets.UTF_8);
  }
}
