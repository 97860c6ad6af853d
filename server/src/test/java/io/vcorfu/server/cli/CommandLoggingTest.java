package io.vcorfu.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.Configurator;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/**
 * Logging set up in code ({@link CommandLogging}) against what the XML it replaces gives: a
 * command's as the node's {@code logback.xml} with the ZooKeeper client's logs turned off, a node's
 * as that file alone. The same levels, and the same lines on standard error, stack traces included.
 */
class CommandLoggingTest {
  private static final List<String> LOGGERS =
      List.of(
          Logger.ROOT_LOGGER_NAME,
          "io.vcorfu.client.ClusterStreamLog",
          "io.vcorfu.runtime.VCorfuRuntime",
          "io.vcorfu.layout.ZkLayoutStore",
          "org.apache.zookeeper.ZooKeeper",
          "org.apache.zookeeper.ClientCnxn",
          "org.apache.curator.framework.imps.CuratorFrameworkImpl",
          "org.apache.curator.ConnectionState",
          "org.apache.curator.framework.recipes.AfterConnectionEstablished",
          "org.apache.curator.framework.recipes.cache.CuratorCache",
          "org.apache.zookeeper.server.ZooKeeperServer",
          "io.netty.util.Recycler");

  @Test
  void aCommandLogsAtTheLevelsTheNodesConfigurationWithTheQuietZooKeeperClientGave()
      throws Exception {
    assertLevelsAsInTheNodesXml(true, CommandLogging.Kind.COMMAND);
  }

  @Test
  void aCommandPrintsAWarningWithItsStackTraceOnStandardErrorAsBefore() throws Exception {
    LoggerContext xml = fromNodesXml(true);
    LoggerContext code = newContext();
    CommandLogging.apply(code, CommandLogging.Kind.COMMAND);
    String before = logged(xml);
    String now = logged(code);
    assertThat(now)
        .contains(onThisThread("WARN io.vcorfu.client.ClusterStreamLog - seed 1 did not answer"));
    assertThat(now).contains("java.io.IOException: connection refused").contains("\tat ");
    assertThat(now).doesNotContain("info from curator");
    // Each line but for its time, which differs from one call to the next.
    assertThat(withoutTimes(now)).isEqualTo(withoutTimes(before));
    xml.stop();
    code.stop();
  }

  @Test
  void aNodeLogsAtTheLevelsOfTheNodesXml() throws Exception {
    assertLevelsAsInTheNodesXml(false, CommandLogging.Kind.NODE);
  }

  /**
   * Every logger of {@link #LOGGERS} at the level the nodes' {@code logback.xml} gives it (with the
   * ZooKeeper client quiet or not), when set up in code as {@code kind}.
   */
  private static void assertLevelsAsInTheNodesXml(boolean quietZooKeeper, CommandLogging.Kind kind)
      throws Exception {
    LoggerContext xml = fromNodesXml(quietZooKeeper);
    LoggerContext code = new LoggerContext();
    CommandLogging.apply(code, kind);
    for (String name : LOGGERS) {
      assertThat(code.getLogger(name).getEffectiveLevel())
          .as(name)
          .isEqualTo(xml.getLogger(name).getEffectiveLevel());
    }
    xml.stop();
    code.stop();
  }

  /** {@code rest} as logged on this thread, after the time. */
  private static String onThisThread(String rest) {
    return " [" + Thread.currentThread().getName() + "] " + rest;
  }

  @Test
  void aNodePrintsTheLinesOfTheNodesXml() throws Exception {
    LoggerContext xml = fromNodesXml(false);
    LoggerContext code = newContext();
    CommandLogging.apply(code, CommandLogging.Kind.NODE);
    String now = logged(code);
    assertThat(now)
        .contains(onThisThread("WARN io.vcorfu.client.ClusterStreamLog - seed 1 did not answer"))
        .contains(onThisThread("WARN org.apache.zookeeper.ZooKeeper - warning from zookeeper"));
    assertThat(now).doesNotContain("info from curator");
    assertThat(withoutTimes(now)).isEqualTo(withoutTimes(logged(xml)));
    xml.stop();
    code.stop();
  }

  @Test
  void logbackFindsTheConfiguratorWhichLeavesOtherProcessesToTheirXml() {
    assertThat(
            ServiceLoader.load(Configurator.class).stream().map(p -> p.type().getName()).toList())
        .contains(CommandLogging.class.getName());
    CommandLogging.Kind was = CommandLogging.kind;
    try {
      CommandLogging.kind = CommandLogging.Kind.NONE;
      LoggerContext context = new LoggerContext();
      assertThat(new CommandLogging().configure(context))
          .isEqualTo(Configurator.ExecutionStatus.INVOKE_NEXT_IF_ANY);
      assertThat(context.getLogger(Logger.ROOT_LOGGER_NAME).iteratorForAppenders().hasNext())
          .isFalse();
      for (CommandLogging.Kind kind :
          List.of(CommandLogging.Kind.COMMAND, CommandLogging.Kind.NODE)) {
        CommandLogging.kind = kind;
        LoggerContext marked = new LoggerContext();
        assertThat(new CommandLogging().configure(marked))
            .isEqualTo(Configurator.ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY);
        assertThat(marked.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("STDERR")).isNotNull();
        marked.stop();
      }
      context.stop();
    } finally {
      CommandLogging.kind = was;
    }
  }

  /**
   * The node's logback.xml; {@code quiet}: with the ZooKeeper client's logs off as commands had
   * them.
   */
  private static LoggerContext fromNodesXml(boolean quiet) throws Exception {
    LoggerContext context = newContext();
    JoranConfigurator configurator = new JoranConfigurator();
    configurator.setContext(context);
    configurator.doConfigure(ServerCommand.class.getResource("/logback.xml"));
    if (quiet) {
      Logging.quietZooKeeperClients(context);
    }
    return context;
  }

  /**
   * What a warning with a stack trace, a warning of the ZooKeeper client and an INFO line of
   * Curator print through {@code context}.
   */
  private static String logged(LoggerContext context) {
    PrintStream err = System.err;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    try {
      context
          .getLogger("io.vcorfu.client.ClusterStreamLog")
          .warn("seed {} did not answer", 1, new java.io.IOException("connection refused"));
      context.getLogger("org.apache.zookeeper.ZooKeeper").warn("warning from zookeeper");
      context.getLogger("org.apache.curator.ConnectionState").info("info from curator");
    } finally {
      System.setErr(err);
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }

  /** A context as Logback's SLF4J provider makes it (with the MDC adapter events read). */
  private static LoggerContext newContext() {
    LoggerContext context = new LoggerContext();
    context.setMDCAdapter(new ch.qos.logback.classic.util.LogbackMDCAdapter());
    return context;
  }

  private static String withoutTimes(String log) {
    return log.replaceAll("(?m)^\\d{4}-\\d\\d-\\d\\dT\\S+ ", "TIME ")
        .replaceAll("CommandLoggingTest\\.java:\\d+", "CommandLoggingTest.java");
  }
}
