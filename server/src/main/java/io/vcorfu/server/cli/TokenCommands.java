package io.vcorfu.server.cli;

import io.vcorfu.server.access.TokenFile;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code vcorfu token create|revoke|list}: the bearer tokens a node run with {@code --tokens FILE}
 * accepts from clients without a certificate. The file holds only hashes; {@code create} prints the
 * new token once.
 */
@Command(
    name = "token",
    mixinStandardHelpOptions = true,
    description =
        "Create, revoke and list the bearer tokens a node (vcorfu server --tokens FILE) accepts"
            + " from clients without a certificate. A token's principal is token:NAME, which"
            + " grants (vcorfu acl grant --principal token:NAME) authorize. Nodes follow the file"
            + " within a second.",
    subcommands = {
      TokenCommands.Create.class,
      TokenCommands.Revoke.class,
      TokenCommands.ListNames.class
    })
final class TokenCommands {
  private TokenCommands() {}

  /** The file every subcommand works on. */
  abstract static class OnFile implements Callable<Integer> {
    @Option(
        names = "--tokens",
        required = true,
        paramLabel = "FILE",
        description = "The token file (vcorfu server --tokens FILE).")
    Path file;

    @Spec CommandSpec spec;

    /** One line on standard error, the usage exit code. */
    int usage(String why) {
      spec.commandLine().getErr().println("vcorfu token " + spec.name() + ": " + why);
      return VcorfuCli.USAGE;
    }

    PrintWriter out() {
      return spec.commandLine().getOut();
    }
  }

  @Command(
      name = "create",
      mixinStandardHelpOptions = true,
      description =
          "Make a new random token for NAME, write its hash to the file (created readable by its"
              + " owner alone) and print the token: it is kept nowhere else, so give it to the"
              + " client now (a file it reads with --token-file).")
  static final class Create extends OnFile {
    @Option(names = "--name", required = true, description = "Who the token is for.")
    String name;

    @Override
    public Integer call() throws IOException {
      if (Files.isDirectory(file)) {
        return usage(file + " is a directory: give the token file");
      }
      String token;
      try {
        token = TokenFile.create(file, name);
      } catch (IllegalArgumentException e) {
        return usage(e.getMessage());
      }
      out().println(token);
      spec.commandLine()
          .getErr()
          .println(
              "token for "
                  + TokenFile.PRINCIPAL_PREFIX
                  + name
                  + " written to "
                  + file
                  + " (its hash only): keep the token above, it is not shown again");
      return VcorfuCli.OK;
    }
  }

  @Command(
      name = "revoke",
      mixinStandardHelpOptions = true,
      description =
          "Remove NAME's token from the file: nodes refuse it within a second (connections it"
              + " opened before keep their principal until they close).")
  static final class Revoke extends OnFile {
    @Option(names = "--name", required = true, description = "Whose token to revoke.")
    String name;

    @Override
    public Integer call() throws IOException {
      if (!Files.isRegularFile(file)) {
        return usage("the token file " + file + " does not exist");
      }
      if (!TokenFile.revoke(file, name)) {
        spec.commandLine()
            .getErr()
            .println("vcorfu token revoke: " + name + " has no token in " + file);
        return VcorfuCli.NOT_FOUND;
      }
      out().println("revoked the token of " + TokenFile.PRINCIPAL_PREFIX + name);
      return VcorfuCli.OK;
    }
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "Print the principal of every token in the file, one a line.")
  static final class ListNames extends OnFile {
    @Override
    public Integer call() {
      if (!Files.isRegularFile(file)) {
        return usage("the token file " + file + " does not exist");
      }
      List<String> names;
      try {
        names = TokenFile.names(file);
      } catch (IllegalArgumentException e) {
        return usage("the token file " + file + ": " + e.getMessage());
      }
      names.forEach(n -> out().println(TokenFile.PRINCIPAL_PREFIX + n));
      return VcorfuCli.OK;
    }
  }
}
