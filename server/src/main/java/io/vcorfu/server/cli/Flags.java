package io.vcorfu.server.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * Checks of option values that their types leave open, made before a command connects or writes
 * anything. Each failure is a usage error ({@link VcorfuCli#USAGE}) whose one line names the option
 * and what it needs.
 */
final class Flags {
  private Flags() {}

  /** {@code value} (when given) is a name: not empty. */
  static void name(CommandSpec spec, String option, String value) {
    if (value != null && value.isEmpty()) {
      throw new ParameterException(spec.commandLine(), option + " needs a name, not an empty one");
    }
  }

  /** {@code value} (when given) is an address or a count: 0 or more. */
  static void notNegative(CommandSpec spec, String option, Long value) {
    if (value != null && value < 0) {
      throw new ParameterException(spec.commandLine(), option + " must be 0 or more, not " + value);
    }
  }

  /** {@code value}, when given, is 1 or more (a count of things to print). */
  static void positive(CommandSpec spec, String option, Long value) {
    if (value != null && value < 1) {
      throw new ParameterException(
          spec.commandLine(), option + " must be at least 1, got " + value);
    }
  }

  /** {@code port} is a TCP port: 1 to 65535. */
  static void port(CommandSpec spec, String option, int port) {
    if (port < 1 || port > 65535) {
      throw new ParameterException(
          spec.commandLine(), option + " must be a port from 1 to 65535, not " + port);
    }
  }

  /** {@code dir} (when given) is a directory, or nothing yet (it is made). */
  static void directory(CommandSpec spec, String option, Path dir) {
    if (dir != null && Files.exists(dir) && !Files.isDirectory(dir)) {
      throw new ParameterException(
          spec.commandLine(),
          option + " " + dir + ": a file, not a directory; give a directory (made if missing)");
    }
  }

  /** {@code file} (when given, and not {@code -} for standard input) is a file one can read. */
  static void readableFile(CommandSpec spec, String option, Path file) {
    if (file == null || file.toString().equals("-")) {
      return;
    }
    if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
      throw new ParameterException(
          spec.commandLine(),
          option
              + " "
              + file
              + ": "
              + (Files.exists(file) ? "not a readable file" : "no such file"));
    }
  }

  /**
   * Why {@code host:port} cannot be listened on now (taken, or not an address of this machine), or
   * null when it can. Bound with the address reuse the node's own socket has, then closed at once.
   */
  static String portInUse(String host, int port) {
    try (java.net.ServerSocket probe = new java.net.ServerSocket()) {
      probe.setReuseAddress(true);
      probe.bind(new java.net.InetSocketAddress(host, port));
      return null;
    } catch (java.io.IOException e) {
      return e.getMessage();
    }
  }
}
