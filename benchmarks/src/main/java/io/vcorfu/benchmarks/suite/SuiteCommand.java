package io.vcorfu.benchmarks.suite;

import picocli.CommandLine.Command;

/**
 * {@code vcorfu bench suite}: whole benchmark runs that start their own processes (vcorfu nodes,
 * ZooKeeper, peer servers), measure with the other bench modes and write markdown tables; each was
 * a script under benchmarks/ that is now a thin wrapper of its suite.
 */
@Command(
    name = "suite",
    mixinStandardHelpOptions = true,
    description =
        "Whole benchmark runs: start the servers, measure with the bench modes, write markdown"
            + " tables.",
    subcommands = {
      ClusterSuite.class,
      RebuildSuite.class,
      YcsbSuite.class,
      BusySuite.class,
      ObjectsSuite.class,
      CompactionSuite.class,
      CollectionsSuite.class,
      StorageSuite.class,
      DegradedSuite.class,
      StreamStoreSuite.class,
      CliSuite.class
    })
public final class SuiteCommand {}
