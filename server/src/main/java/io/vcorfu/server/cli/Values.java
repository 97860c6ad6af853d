package io.vcorfu.server.cli;

import io.vcorfu.client.StreamLogOptions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * A command's value: the argument as UTF-8 text, {@code -} for standard input, or {@code
 * --value-file FILE} (bytes as they are; {@code -} for standard input). An entry holds at most
 * {@link StreamLogOptions#DEFAULT_MAX_ENTRY_BYTES} bytes, headers included. Inside {@code vcorfu
 * shell} standard input is the shell's, and {@code -} is refused.
 */
final class Values {
  private Values() {}

  /** Where standard input is read from (tests replace it). */
  static InputStream stdin = System.in;

  /** The most bytes read for a value: anything longer cannot be an entry. */
  static final int MAX_VALUE_BYTES = StreamLogOptions.DEFAULT_MAX_ENTRY_BYTES;

  /**
   * Refuses {@code -} (standard input) for a command run by {@code vcorfu shell}, whose standard
   * input carries the shell's lines; checked before the command connects.
   */
  static void notShellInput(CommandSpec spec, String argument, Path file) {
    boolean fromStdin =
        (file == null && "-".equals(argument)) || (file != null && file.toString().equals("-"));
    if (fromStdin && ShellSession.of(spec) != null) {
      throw new ParameterException(
          spec.commandLine(),
          "inside vcorfu shell standard input carries the commands: give the value as an argument"
              + " or with --value-file FILE");
    }
  }

  /**
   * The value {@code argument} or {@code file} gives (exactly one of them); a usage error when both
   * or neither are given.
   */
  static byte[] read(CommandSpec spec, String argument, Path file) throws IOException {
    if ((argument == null) == (file == null)) {
      throw new ParameterException(
          spec.commandLine(),
          argument == null
              ? "give the value as an argument, - for standard input, or --value-file FILE"
              : "give the value either as an argument or with --value-file, not both");
    }
    if (file == null && !argument.equals("-")) {
      return argument.getBytes(StandardCharsets.UTF_8);
    }
    boolean fromStdin = file == null || file.toString().equals("-");
    try (InputStream in = fromStdin ? stdin : Files.newInputStream(file)) {
      byte[] bytes = in.readNBytes(MAX_VALUE_BYTES + 1);
      if (bytes.length > MAX_VALUE_BYTES) {
        throw new IllegalArgumentException(
            "the value from "
                + (fromStdin ? "standard input" : file.toString())
                + " is larger than an entry may be ("
                + MAX_VALUE_BYTES
                + " bytes, headers included)");
      }
      return bytes;
    }
  }
}
