package io.vcorfu.server.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.pattern.ThrowableProxyConverter;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.CoreConstants;
import ch.qos.logback.core.LayoutBase;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import ch.qos.logback.core.spi.ContextAwareBase;
import ch.qos.logback.core.status.NopStatusListener;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * The logging of every {@code vcorfu} command, set up in code instead of read from XML, which cost
 * a one-shot command a fifth of its start and a node a tenth of its start: every line on standard
 * error with its time and thread, vcorfu and the rest at INFO. A node or a ZooKeeper server ({@link
 * #forNode}) logs at the levels of the node's {@code logback.xml} (the ZooKeeper client's and
 * Curator's chatter at WARN, their per-retry stack traces off); any other command ({@code vcorfu
 * log ...}, {@code vcorfu map ...}, the shell, ..., {@link #forCommand}) has the ZooKeeper client,
 * Curator and the layout store's connection report off, see {@link Logging#quietZooKeeperClients}.
 *
 * <p>Logback finds this class through {@code META-INF/services} and asks it first when something
 * first logs (a command that logs nothing, such as {@code --version}, never starts Logback). It
 * configures only a JVM that {@link #forCommand} or {@link #forNode} marked; otherwise (tests, an
 * application with the server jar on its class path) it leaves the configuration to the next
 * configurator, that is to {@code logback.xml} or {@code logback-test.xml}. A configuration file
 * given as {@code -Dlogback.configurationFile} (the release's {@code conf/logback.xml}) is read
 * instead.
 */
public final class CommandLogging extends ContextAwareBase implements Configurator {
  /** Whose logging {@link #configure} sets up: a command's, a node's, or none (the next one). */
  enum Kind {
    NONE,
    COMMAND,
    NODE
  }

  /** Curator's loggers that log a stack trace per retry of a background operation. */
  private static final List<String> CURATOR_RETRIES =
      List.of(
          "org.apache.curator.framework.imps.CuratorFrameworkImpl",
          "org.apache.curator.framework.recipes.AfterConnectionEstablished",
          "org.apache.curator.ConnectionState");

  /** Set once for the JVM, before anything logs; read by Logback's initialization thread. */
  static volatile Kind kind = Kind.NONE;

  /** Logback instantiates this through its service loader. */
  public CommandLogging() {}

  /**
   * Marks this JVM as running a command: Logback, when something first logs, is configured by
   * {@link #configure} and reads no XML. A configuration file given as {@code
   * -Dlogback.configurationFile} is honoured instead, with the ZooKeeper client's logs off as
   * before (this starts Logback at once).
   */
  static void forCommand() {
    if (System.getProperty("logback.configurationFile") != null) {
      Logging.quietZooKeeperClients();
      return;
    }
    kind = Kind.COMMAND;
  }

  /**
   * Marks this JVM as running a node or a ZooKeeper server: configured as the node's {@code
   * logback.xml} says, without reading it, unless {@code -Dlogback.configurationFile} names a file.
   */
  static void forNode() {
    if (System.getProperty("logback.configurationFile") == null) {
      kind = Kind.NODE;
    }
  }

  @Override
  public ExecutionStatus configure(LoggerContext context) {
    Kind k = kind;
    if (k == Kind.NONE) {
      return ExecutionStatus.INVOKE_NEXT_IF_ANY;
    }
    apply(context, k);
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }

  /** Configures {@code context} as {@code k} (a command or a node) logs. */
  static void apply(LoggerContext context, Kind k) {
    context.getStatusManager().add(new NopStatusListener());
    Lines lines = new Lines();
    lines.setContext(context);
    lines.start();
    LayoutWrappingEncoder<ILoggingEvent> encoder = new LayoutWrappingEncoder<>();
    encoder.setContext(context);
    encoder.setLayout(lines);
    encoder.start();
    ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
    console.setContext(context);
    console.setName("STDERR");
    console.setTarget("System.err");
    console.setEncoder(encoder);
    console.start();
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.INFO);
    root.addAppender(console);
    context.getLogger("io.vcorfu").setLevel(Level.INFO);
    if (k == Kind.NODE) {
      // As logback.xml: the node says once per change whether it is connected to ZooKeeper
      // (io.vcorfu.layout.ZkLayoutStore) and reports the operations that failed.
      context.getLogger("org.apache.zookeeper").setLevel(Level.WARN);
      context.getLogger("org.apache.zookeeper.ClientCnxn").setLevel(Level.OFF);
      context.getLogger("org.apache.curator").setLevel(Level.WARN);
      for (String off : CURATOR_RETRIES) {
        context.getLogger(off).setLevel(Level.OFF);
      }
    } else {
      Logging.quietZooKeeperClients(context);
    }
  }

  /**
   * The lines of {@link Logging#PATTERN}, written out instead of compiled from the pattern (whose
   * parser and table of converters cost a command more than the rest of its logging): the time with
   * its offset, the thread, the level, the logger, the message, then the stack trace of an
   * exception as the pattern adds it.
   */
  static final class Lines extends LayoutBase<ILoggingEvent> {
    private static final DateTimeFormatter TIME =
        DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSXXX")
            .withZone(ZoneId.systemDefault());

    private final ThrowableProxyConverter stackTrace = new ThrowableProxyConverter();

    @Override
    public void start() {
      stackTrace.setContext(getContext());
      stackTrace.start();
      super.start();
    }

    @Override
    public String doLayout(ILoggingEvent event) {
      StringBuilder line = new StringBuilder(128);
      TIME.formatTo(Instant.ofEpochMilli(event.getTimeStamp()), line);
      line.append(" [")
          .append(event.getThreadName())
          .append("] ")
          .append(event.getLevel())
          .append(' ')
          .append(event.getLoggerName())
          .append(" - ")
          .append(event.getFormattedMessage())
          .append(CoreConstants.LINE_SEPARATOR)
          .append(stackTrace.convert(event));
      return line.toString();
    }
  }
}
