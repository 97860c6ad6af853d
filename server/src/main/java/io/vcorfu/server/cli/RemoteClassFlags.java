package io.vcorfu.server.cli;

import io.vcorfu.server.RemoteClasses;
import java.time.Duration;
import picocli.CommandLine.Option;

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
      description =
          "Drop a shipped bundle, with its hosted views, after this long unused (default"
              + " ${DEFAULT-VALUE}).")
  long idleMs;

  @Option(
      names = "--remote-classes-max",
      defaultValue = "16",
      description = "The most shipped bundles held at once (default ${DEFAULT-VALUE}).")
  int maxBundles;

  @Option(
      names = "--remote-classes-max-mb",
      defaultValue = "8",
      description = "The largest shipped bundle taken, in MiB (default ${DEFAULT-VALUE}).")
  long maxBundleMb;

  /** The settings the flags say. */
  RemoteClasses config() {
    return new RemoteClasses(
        accept, Duration.ofMillis(idleMs), maxBundles, Math.multiplyExact(maxBundleMb, 1L << 20));
  }
}
