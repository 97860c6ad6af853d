package io.vcorfu.server.cli;

/**
 * The values of every command's {@code --output}: {@code text} for people, {@code json} for
 * machines. A value that is neither is a usage error picocli reports, naming both.
 */
public enum OutputFormat {
  text,
  json
}
