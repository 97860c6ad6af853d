package io.vcorfu.server.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.rolling.FixedWindowRollingPolicy;
import ch.qos.logback.core.rolling.RollingFileAppender;
import ch.qos.logback.core.rolling.SizeBasedTriggeringPolicy;
import ch.qos.logback.core.util.FileSize;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.LoggerFactory;

/**
 * The server's logging beyond {@code logback.xml}: the level of vcorfu's loggers, and a log file in
 * the data directory rolled at {@value #ROLL_AT}, {@value #KEPT} files kept.
 */
final class Logging {
  static final String ROLL_AT = "10MB";
  static final int KEPT = 5;
  static final String PATTERN =
      "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} [%thread] %level %logger - %msg%n";

  private Logging() {}

  /** Sets the level of vcorfu's loggers ({@code trace} ... {@code error}). */
  static void level(String level) {
    if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
      context.getLogger("io.vcorfu").setLevel(Level.toLevel(level, Level.INFO));
    }
  }

  /**
   * Turns off the ZooKeeper client's and Curator's logs, and the layout store's connection report
   * (see {@link VcorfuCli#main} and {@link CommandLogging}): a command says what went wrong itself.
   */
  static void quietZooKeeperClients() {
    if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
      quietZooKeeperClients(context);
    }
  }

  /** The same, in {@code context}. */
  static void quietZooKeeperClients(LoggerContext context) {
    context.getLogger("org.apache.zookeeper").setLevel(Level.OFF);
    context.getLogger("org.apache.curator").setLevel(Level.OFF);
    context.getLogger("io.vcorfu.layout.ZkLayoutStore").setLevel(Level.OFF);
  }

  /**
   * Also logs to {@code dir/vcorfu.log}, rolled to {@code vcorfu.1.log} ... at {@value #ROLL_AT};
   * nothing when the directory cannot be created (the console still has every line).
   */
  static void toFile(Path dir) {
    if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
      return;
    }
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      LoggerFactory.getLogger(Logging.class)
          .warn("no log file in {}: {}; logging to the console only", dir, e.toString());
      return;
    }
    RollingFileAppender<ILoggingEvent> file = new RollingFileAppender<>();
    file.setContext(context);
    file.setName("FILE");
    file.setFile(dir.resolve("vcorfu.log").toString());
    FixedWindowRollingPolicy rolling = new FixedWindowRollingPolicy();
    rolling.setContext(context);
    rolling.setParent(file);
    rolling.setFileNamePattern(dir.resolve("vcorfu.%i.log").toString());
    rolling.setMinIndex(1);
    rolling.setMaxIndex(KEPT);
    rolling.start();
    SizeBasedTriggeringPolicy<ILoggingEvent> trigger = new SizeBasedTriggeringPolicy<>();
    trigger.setContext(context);
    trigger.setMaxFileSize(FileSize.valueOf(ROLL_AT));
    trigger.start();
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern(PATTERN);
    encoder.start();
    file.setRollingPolicy(rolling);
    file.setTriggeringPolicy(trigger);
    file.setEncoder(encoder);
    file.start();
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.addAppender(file);
  }
}
