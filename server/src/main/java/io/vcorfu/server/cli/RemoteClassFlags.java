package io.vcorfu.server.cli;

import io.vcorfu.server.RemoteClasses;
import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code --accept-remote-classes} and its limits: whether the remote-view host takes object classes
 * from clients.
 */
final class RemoteClassFlags {
  @Option(
      names = "--accept-remote-classes",
      description =
          "Run object classes clients ship with remote views (code this node then runs), so a new"
              + " type needs no --classpath and no restart. Off by default; where the node"
              + " authorizes requests, only principals with the deploy permission may ship.")
  boolean accept;

  @Option(
      names = "--remote-classes-idle-ms",
      defaultValue = "300000",
      converter = Positive.class,
      description =
          "Drop a shipped bundle, with its hosted views, after this long unused (default"
              + " ${DEFAULT-VALUE}).")
  Long idleMs;

  @Option(
      names = "--remote-classes-max",
      defaultValue = "16",
      converter = Positive.class,
      description = "The most shipped bundles held at once (default ${DEFAULT-VALUE}).")
  Long maxBundles;

  @Option(
      names = "--remote-classes-max-mb",
      defaultValue = "8",
      converter = Positive.class,
      description = "The largest shipped bundle taken, in MiB (default ${DEFAULT-VALUE}).")
  Long maxBundleMb;

  /** The settings the flags say. */
  RemoteClasses config() {
    return new RemoteClasses(
        accept,
        Duration.ofMillis(idleMs),
        (int) Math.min(maxBundles, Integer.MAX_VALUE),
        Math.multiplyExact(maxBundleMb, 1L << 20));
  }

  /** Parses a whole number of 1 or more (at most 2^40: a size in MiB must fit in bytes). */
  static final class Positive implements ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
      long n;
      try {
        n = Long.parseLong(value.strip());
      } catch (NumberFormatException e) {
        throw new TypeConversionException("'" + value + "' is not a whole number");
      }
      if (n < 1 || n > (1L << 40)) {
        throw new TypeConversionException("'" + value + "' must be between 1 and 2^40");
      }
      return n;
    }
  }
}
