package io.vcorfu.server.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import io.vcorfu.server.DataDirectoryInUseException;
import io.vcorfu.server.Node;
import io.vcorfu.server.NodeConfig;
import io.vcorfu.server.cluster.ClusterConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code --warm-up-s}: the node says when it warms up and what the warm-up did, and the throwaway
 * nodes' own lines (one of them says "sequencer ready") stay out of the node's log, whose level is
 * as it was afterwards; a warm-up that fails is reported and the node starts without it.
 */
class WarmUpFlagTest {
  @Test
  void theWarmUpIsAnnouncedAndItsNodesLinesStayOutOfTheLog() {
    WarmUpFlag flag = new WarmUpFlag();
    new CommandLine(flag).parseArgs("--warm-up-s", "2");
    Logger ours = (Logger) org.slf4j.LoggerFactory.getLogger("io.vcorfu");
    Logger zookeeper = (Logger) org.slf4j.LoggerFactory.getLogger("org.apache.zookeeper");
    Level level = ours.getLevel();
    Level zookeeperLevel = zookeeper.getLevel();
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.start();
    ours.addAppender(lines);
    ours.setLevel(Level.INFO); // the build's tests log at WARN
    List<String> said = new ArrayList<>();
    try {
      flag.run(NodeConfig.inMemory(new Endpoint("127.0.0.1", 7999)), false, said::add);
      assertThat(ours.getLevel()).isEqualTo(Level.INFO);
      assertThat(zookeeper.getLevel()).isEqualTo(zookeeperLevel);
    } finally {
      ours.detachAppender(lines);
      ours.setLevel(level);
    }
    assertThat(said).hasSize(2);
    assertThat(said.get(0))
        .startsWith("vcorfu node 127.0.0.1:7999 warming up (at most 2 s, one node");
    assertThat(said.get(1))
        .startsWith("vcorfu node 127.0.0.1:7999 warmed up: ")
        .containsPattern(
            "\\d+ appends and \\d+ tokens in [\\d.]+ s \\((compilers quiet|limit reached)\\)");
    // The throwaway nodes' errors only; the warm-up's own warnings.
    assertThat(lines.list)
        .allSatisfy(
            e ->
                assertThat(
                        e.getLevel().isGreaterOrEqual(Level.ERROR)
                            || e.getLoggerName().equals(io.vcorfu.server.WarmUp.class.getName()))
                    .isTrue());
  }

  @Test
  void aClusterNodeIsToldItWarmsUpWithAZooKeeperOfItsOwn(@TempDir Path tmp) throws Exception {
    WarmUpFlag flag = new WarmUpFlag();
    new CommandLine(flag).parseArgs("--warm-up-s", "5");
    Path notADirectory = Files.writeString(tmp.resolve("file"), "x");
    NodeConfig node =
        NodeConfig.durable(new Endpoint("127.0.0.1", 7999), tmp.resolve("data"))
            .inCluster(ClusterConfig.of("127.0.0.1:2181", "production"));
    List<String> said = new ArrayList<>();

    flag.run(node, true, said::add, notADirectory);

    assertThat(said.get(0))
        .isEqualTo(
            "vcorfu node 127.0.0.1:7999 warming up (at most 5 s, three replicating nodes and a"
                + " ZooKeeper in this process)");
    assertThat(tmp.resolve("data")).doesNotExist();
  }

  @Test
  void aWarmUpThatFailsIsReportedAndTheNodeStartsWithoutIt(@TempDir Path tmp) throws Exception {
    WarmUpFlag flag = new WarmUpFlag();
    new CommandLine(flag).parseArgs("--warm-up-s", "5");
    Path notADirectory = Files.writeString(tmp.resolve("file"), "x");
    List<String> said = new ArrayList<>();

    flag.run(NodeConfig.inMemory(new Endpoint("127.0.0.1", 7999)), true, said::add, notADirectory);

    assertThat(said).hasSize(2);
    assertThat(said.get(1))
        .startsWith("vcorfu node 127.0.0.1:7999 starts without its warm-up: the warm-up failed: ")
        .endsWith("(its first requests will be slower)");
    try (java.util.stream.Stream<Path> left = Files.list(tmp)) {
      assertThat(left).containsExactly(notADirectory);
    }
  }

  @Test
  void aNodeWhoseDataDirectoryIsHeldIsRefusedBeforeItWarmsUp(@TempDir Path tmp) throws Exception {
    WarmUpFlag flag = new WarmUpFlag();
    new CommandLine(flag).parseArgs("--warm-up-s", "60");
    Path data = tmp.resolve("data");
    Path scratch = Files.createDirectory(tmp.resolve("scratch"));
    List<String> said = new ArrayList<>();
    try (InJvmTransport transport = new InJvmTransport();
        Node holder = Node.start(NodeConfig.durable(new Endpoint("a", 1), data), transport)) {
      holder.ready().join();
      NodeConfig second = NodeConfig.durable(new Endpoint("127.0.0.1", 7999), data);

      assertThatThrownBy(() -> flag.run(second, false, said::add, scratch))
          .isInstanceOf(DataDirectoryInUseException.class)
          .hasMessageContaining("stop that node or give this one another --data-dir");
    }
    assertThat(said).isEmpty();
    try (java.util.stream.Stream<Path> left = Files.list(scratch)) {
      assertThat(left).isEmpty();
    }
  }

  @Test
  void noWarmUpByDefault() {
    WarmUpFlag flag = new WarmUpFlag();
    new CommandLine(flag).parseArgs();
    List<String> said = new ArrayList<>();
    flag.run(NodeConfig.inMemory(new Endpoint("127.0.0.1", 7999)), true, said::add);
    assertThat(said).isEmpty();
  }
}
