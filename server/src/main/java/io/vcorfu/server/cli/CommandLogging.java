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

/**
 * The logging of a command that is not a node or a ZooKeeper server ({@code vcorfu log ...}, {@code
 * vcorfu map ...}, the shell, ...): what the node's {@code logback.xml} sets, as a client command
 * gets it (every line on standard error with its time and thread, vcorfu and the rest at INFO, the
 * ZooKeeper client, Curator and the layout store's connection report off, see {@link
 * Logging#quietZooKeeperClients}), set up in code instead of read from XML, which cost a one-shot
 * command a fifth of its start.
 *
 * <p>Logback finds this class through {@code META-INF/services} and asks it first when something
 * first logs (a command that logs nothing, such as {@code --version}, never starts Logback). It
 * configures only a JVM that {@link #forCommand} marked; otherwise (a node, a ZooKeeper server,
 * tests) it leaves the configuration to the next configurator, that is to {@code logback.xml} or
 * {@code logback-test.xml}.
 */
public final class CommandLogging extends ContextAwareBase implements Configurator {
  /** Set once for the JVM, before anything logs; read by Logback's initialization thread. */
  static volatile boolean command;

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
    command = true;
  }

  @Override
  public ExecutionStatus configure(LoggerContext context) {
    if (!command) {
      return ExecutionStatus.INVOKE_NEXT_IF_ANY;
    }
    apply(context);
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }

  /** Configures {@code context} as a command logs. */
  static void apply(LoggerContext context) {
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
    Logging.quietZooKeeperClients(context);
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
