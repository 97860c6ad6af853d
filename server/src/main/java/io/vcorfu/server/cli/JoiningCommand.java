package io.vcorfu.server.cli;

import picocli.CommandLine.Option;

/** A command that brings a node in, and can wait until it is a full member. */
abstract class JoiningCommand extends MembershipCommand {
  @Option(
      names = "--wait",
      description =
          "Wait until the new node is a full member (rebuilt and promoted), printing the"
              + " rebuild's progress every second.")
  boolean await;

  @Override
  boolean await() {
    return await;
  }
}
