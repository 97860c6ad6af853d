package io.vcorfu.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.core.status.Status;
import java.net.URL;
import org.junit.jupiter.api.Test;

/**
 * The node's {@code logback.xml} (the release's {@code conf/logback.xml}; a node run otherwise logs
 * the same, set up in code, see {@link CommandLoggingTest}): it parses without an error, logs
 * vcorfu at INFO and ZooKeeper and Curator at WARN.
 */
class LoggingConfigTest {
  @Test
  void theNodesLoggingConfigurationParsesAndSetsTheLevels() throws Exception {
    URL config = ServerCommand.class.getResource("/logback.xml");
    assertThat(config).isNotNull();
    LoggerContext context = new LoggerContext();
    JoranConfigurator configurator = new JoranConfigurator();
    configurator.setContext(context);
    configurator.doConfigure(config);
    assertThat(context.getStatusManager().getCopyOfStatusList())
        .noneMatch(s -> s.getEffectiveLevel() >= Status.WARN);
    assertThat(context.getLogger("io.vcorfu.server.Node").getEffectiveLevel())
        .isEqualTo(Level.INFO);
    assertThat(context.getLogger("org.apache.zookeeper.ZooKeeper").getEffectiveLevel())
        .isEqualTo(Level.WARN);
    // A stack trace per connection retry: the node reports its connection itself.
    assertThat(context.getLogger("org.apache.zookeeper.ClientCnxn").getEffectiveLevel())
        .isEqualTo(Level.OFF);
    assertThat(
            context
                .getLogger("org.apache.curator.framework.imps.CuratorFrameworkImpl")
                .getEffectiveLevel())
        .isEqualTo(Level.OFF);
    assertThat(context.getLogger("io.vcorfu.layout.ZkLayoutStore").getEffectiveLevel())
        .isEqualTo(Level.INFO);
    assertThat(context.getLogger("io.netty.util.Recycler").getEffectiveLevel())
        .isEqualTo(Level.INFO);
    context.stop();
  }
}
