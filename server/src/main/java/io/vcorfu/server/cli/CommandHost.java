package io.vcorfu.server.cli;

import com.google.protobuf.ByteString;
import io.vcorfu.protocol.RpcHandler;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.protocol.proto.RunCommandResponse;
import io.vcorfu.server.CommandRequests;
import io.vcorfu.server.Node;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * Runs the one-shot data commands callers send a node ({@link OneShot}: {@code RUN_COMMAND}
 * requests) with a client and an object runtime this node's process keeps from one command to the
 * next (a {@link ShellSession} pinned to the node's own endpoint), one command at a time, on a
 * thread of its own. Each command is parsed and run by the same command tree as on the command
 * line, so it prints and exits exactly as there. The kept clients are closed after a command that
 * failed (exit 1, as the shell does) and after {@link #IDLE_SECONDS} without a command.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>Installed only on a node that serves plaintext and accepts no bearer tokens ({@link
 *       #serve}): whoever reaches such a node's port may already read and write every stream
 *       through it; running a command for them grants nothing more. A node with TLS runs none.
 *   <li>Runs only what {@link OneShot#refusal} accepts, checked again here on what arrived: never a
 *       command that would read this process's standard input or a file of this machine (argument
 *       files are not expanded either), and no environment variable of this process is read for a
 *       default ({@link ShellSession#environment}).
 *   <li>A declined request ran nothing (too many waiting, a read whose output exceeds {@link
 *       #MAX_READ_OUTPUT}, the host closing): the caller runs the command itself. Once a write has
 *       started it is answered with what it printed and its exit code, never declined.
 * </ul>
 */
final class CommandHost implements RpcHandler, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CommandHost.class);

  /** Commands waiting or running beyond which new ones are declined. */
  static final int MAX_WAITING = 16;

  /** The most characters a read may print: a longer read is declined (the caller reads it). */
  static final int MAX_READ_OUTPUT = 1 << 20;

  /** The most characters of a write's output, or of any error output, sent; the rest is cut. */
  static final int MAX_OUTPUT = 12 << 20;

  /** Seconds without a command after which the kept clients are closed. */
  static final long IDLE_SECONDS = 30;

  private final Node node;
  private final ScheduledThreadPoolExecutor runner;
  private final AtomicInteger waiting = new AtomicInteger();

  // Touched by the runner's thread only.
  private ShellSession session;
  private long lastCommandNanos;

  private CommandHost(Node node) {
    this.node = node;
    runner =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "vcorfu-command-host");
              t.setDaemon(true);
              return t;
            });
    runner.scheduleWithFixedDelay(this::closeIdle, IDLE_SECONDS, IDLE_SECONDS, TimeUnit.SECONDS);
  }

  /**
   * Has {@code node} run callers' one-shot commands, when it serves plaintext with no bearer tokens
   * ({@code tls} and {@code tokens} null); returns the host to close before the node, or null when
   * the node runs none.
   */
  static CommandHost serve(
      Node node, io.vcorfu.protocol.TlsOptions tls, io.vcorfu.server.access.TokenFile tokens) {
    if (tls != null || tokens != null) {
      return null;
    }
    CommandHost host = new CommandHost(node);
    node.commands.serve(host);
    return host;
  }

  @Override
  public CompletableFuture<Response> handle(Request request) {
    List<String> args = request.getRunCommand().getArgsList();
    String refused = OneShot.refusal(args);
    if (refused != null) {
      return done(CommandRequests.declined("this node " + refused));
    }
    if (waiting.incrementAndGet() > MAX_WAITING) {
      waiting.decrementAndGet();
      return done(CommandRequests.declined(MAX_WAITING + " commands are waiting on this node"));
    }
    CompletableFuture<Response> answer = new CompletableFuture<>();
    try {
      runner.execute(
          () -> {
            try {
              answer.complete(run(args));
            } catch (RuntimeException | Error e) {
              LOG.warn("running {} for a caller", args, e);
              answer.complete(failed("vcorfu: " + VcorfuCli.describe(e)));
            } finally {
              waiting.decrementAndGet();
            }
          });
    } catch (RejectedExecutionException e) {
      waiting.decrementAndGet();
      return done(CommandRequests.declined("this node is stopping"));
    }
    return answer;
  }

  private Response run(List<String> args) {
    lastCommandNanos = System.nanoTime();
    if (session == null) {
      session = new ShellSession(node.endpoint());
    }
    boolean read = OneShot.isRead(args);
    Capped out = new Capped(read ? MAX_READ_OUTPUT : MAX_OUTPUT, read);
    Capped err = new Capped(MAX_OUTPUT, false);
    CommandLine cl = VcorfuCli.forRunOf(args.get(0), args.get(1), session);
    cl.setExpandAtFiles(false);
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int code = cl.execute(args.toArray(String[]::new));
    if (out.over && read) {
      return CommandRequests.declined(
          "the output is longer than " + MAX_READ_OUTPUT + " characters");
    }
    if (code == VcorfuCli.FAILED) {
      // A client may be left waiting on a node that went away; a miss (exit 3) or a usage error
      // (2) says nothing of the clients, and reopening them would cost the next command.
      session.reset();
    }
    return Response.newBuilder()
        .setRunCommand(
            RunCommandResponse.newBuilder()
                .setExitCode(code)
                .setOut(out.bytes())
                .setErr(err.bytes()))
        .build();
  }

  private void closeIdle() {
    if (session != null
        && System.nanoTime() - lastCommandNanos > TimeUnit.SECONDS.toNanos(IDLE_SECONDS)) {
      session.close();
      session = null;
    }
  }

  /** Stops taking commands, waits a little for the one running, and closes the kept clients. */
  @Override
  public void close() {
    node.commands.serve(null);
    try {
      runner.execute(
          () -> {
            if (session != null) {
              session.close();
              session = null;
            }
          });
    } catch (RejectedExecutionException e) {
      return; // closed already
    }
    runner.shutdown();
    try {
      runner.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static CompletableFuture<Response> done(Response r) {
    return CompletableFuture.completedFuture(r);
  }

  private static Response failed(String line) {
    return Response.newBuilder()
        .setRunCommand(
            RunCommandResponse.newBuilder()
                .setExitCode(VcorfuCli.FAILED)
                .setErr(ByteString.copyFromUtf8(line + "\n")))
        .build();
  }

  /**
   * Text kept up to a limit. Past it, one that {@code stops} throws (so a read that would print too
   * much ends at once); else the rest is dropped and a line says so.
   */
  private static final class Capped extends Writer {
    private final StringBuilder text = new StringBuilder();
    private final int limit;
    private final boolean stops;
    boolean over;

    Capped(int limit, boolean stops) {
      this.limit = limit;
      this.stops = stops;
    }

    @Override
    public void write(char[] buf, int off, int len) {
      if (text.length() + len > limit) {
        over = true;
        if (stops) {
          throw new IllegalStateException("the output is longer than " + limit + " characters");
        }
        text.append(buf, off, Math.max(0, limit - text.length()));
        return;
      }
      text.append(buf, off, len);
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}

    ByteString bytes() {
      String s =
          over && !stops ? text + "\nvcorfu: the rest of the output was cut\n" : text.toString();
      return ByteString.copyFrom(s, StandardCharsets.UTF_8);
    }
  }
}
