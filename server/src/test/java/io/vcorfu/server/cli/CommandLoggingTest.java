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
 * A command's logging set up in code ({@link CommandLogging}) against what commands had before: the
 * node's {@code logback.xml} with the ZooKeeper client's logs turned off. The same levels, and the
 * same lines on standard error, stack traces included.
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
          "io.netty.util.Recycler");

  @Test
  void aCommandLogsAtTheLevelsTheNodesConfigurationWithTheQuietZooKeeperClientGave()
      throws Exception {
    LoggerContext xml = fromNodesXml();
    LoggerContext code = new LoggerContext();
    CommandLogging.apply(code);
    for (String name : LOGGERS) {
      assertThat(code.getLogger(name).getEffectiveLevel())
          .as(name)
          .isEqualTo(xml.getLogger(name).getEffectiveLevel());
    }
    xml.stop();
    code.stop();
  }

  @Test
  void aCommandPrintsAWarningWithItsStackTraceOnStandardErrorAsBefore() throws Exception {
    LoggerContext xml = fromNodesXml();
    LoggerContext code = newContext();
    CommandLogging.apply(code);
    String before = logged(xml);
    String now = logged(code);
    assertThat(now)
        .contains(" [main] WARN io.vcorfu.client.ClusterStreamLog - seed 1 did not answer");
    assertThat(now).contains("java.io.IOException: connection refused").contains("\tat ");
    assertThat(now).doesNotContain("info from curator");
    // Each line but for its time, which differs from one call to the next.
    assertThat(withoutTimes(now)).isEqualTo(withoutTimes(before));
    xml.stop();
    code.stop();
  }

  @Test
  void logbackFindsTheConfiguratorWhichLeavesOtherProcessesToTheirXml() {
    assertThat(
            ServiceLoader.load(Configurator.class).stream().map(p -> p.type().getName()).toList())
        .contains(CommandLogging.class.getName());
    boolean was = CommandLogging.command;
    try {
      CommandLogging.command = false;
      LoggerContext context = new LoggerContext();
      assertThat(new CommandLogging().configure(context))
          .isEqualTo(Configurator.ExecutionStatus.INVOKE_NEXT_IF_ANY);
      assertThat(context.getLogger(Logger.ROOT_LOGGER_NAME).iteratorForAppenders().hasNext())
          .isFalse();
      CommandLogging.command = true;
      assertThat(new CommandLogging().configure(context))
          .isEqualTo(Configurator.ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY);
      assertThat(context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("STDERR")).isNotNull();
      context.stop();
    } finally {
      CommandLogging.command = was;
    }
  }

  /** The node's logback.xml, with the ZooKeeper client's logs off as commands had them. */
  private static LoggerContext fromNodesXml() throws Exception {
    LoggerContext context = newContext();
    JoranConfigurator configurator = new JoranConfigurator();
    configurator.setContext(context);
    configurator.doConfigure(ServerCommand.class.getResource("/logback.xml"));
    Logging.quietZooKeeperClients(context);
    return context;
  }

  /**
   * What a warning with a stack trace and an INFO line of Curator print through {@code context}.
   */
  private static String logged(LoggerContext context) {
    PrintStream err = System.err;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    try {
      context
          .getLogger("io.vcorfu.client.ClusterStreamLog")
          .warn("seed {} did not answer", 1, new java.io.IOException("connection refused"));
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
