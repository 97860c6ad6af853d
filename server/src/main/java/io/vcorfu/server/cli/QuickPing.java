package io.vcorfu.server.cli;

import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.proto.PingResponse;
import java.io.IOException;
import java.io.PrintStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code vcorfu ping} on bare sockets: one connection and one ping per node of {@code --endpoint},
 * without starting a client (its event loop, its connection handling, its classes), which is most
 * of a call's time. It prints exactly what {@link PingCommand} prints ({@link PingLine}).
 *
 * <p>It handles only the plain case: a command line of {@code --endpoint}, {@code --timeout} and
 * {@code --output} (anything else, help or TLS included, is left to {@link PingCommand}), and only
 * when every node answers a ping. When any node cannot be reached, does not answer within {@link
 * OneShot#PING_TIMEOUT} (or the shorter {@code --timeout}), or answers something else, it prints
 * nothing and {@link PingCommand} runs instead, so that what a failure says is said one way. A ping
 * changes nothing, so asking twice harms nothing.
 */
final class QuickPing {
  private QuickPing() {}

  /** Runs {@code args} ({@code ping ...}): the exit code, or null when {@link PingCommand} runs. */
  static Integer run(List<String> args, Map<String, String> env, PrintStream out) {
    String endpoints = env.getOrDefault(Connection.ENDPOINT_VARIABLE, "127.0.0.1:9000");
    Duration timeout = OneShot.PING_TIMEOUT;
    boolean json = false;
    java.util.Set<String> given = new java.util.HashSet<>();
    try {
      for (int i = 1; i < args.size(); i++) {
        String a = args.get(i);
        int eq = a.indexOf('=');
        String name = eq < 0 ? a : a.substring(0, eq);
        if (!name.equals("--endpoint") && !name.equals("--timeout") && !name.equals("--output")
            || !given.add(name)) {
          return null; // another option, or one given twice: the client says what it makes of it
        }
        String value;
        if (eq >= 0) {
          value = a.substring(eq + 1);
        } else if (i + 1 < args.size()) {
          value = args.get(++i);
        } else {
          return null;
        }
        switch (name) {
          case "--endpoint" -> endpoints = value;
          case "--timeout" -> {
            Duration t = new Connection.DurationConverter().convert(value);
            timeout = t.compareTo(timeout) < 0 ? t : timeout;
          }
          default -> {
            if (!value.equals("text") && !value.equals("json")) {
              return null;
            }
            json = value.equals("json");
          }
        }
      }
      List<String> lines = new ArrayList<>();
      boolean all = true;
      for (Endpoint e : Endpoint.parseList(endpoints)) {
        long started = System.nanoTime();
        PingResponse p;
        try (Socket s = new Socket()) {
          p = OneShot.ping(s, e, timeout);
        }
        if (p == null) {
          return null;
        }
        all &= p.getServing();
        lines.add(PingLine.answered(e, p, (System.nanoTime() - started) / 1e6, json));
      }
      for (String line : lines) {
        // UTF-8 whatever the locale, as the command line prints (VcorfuCli.utf8)
        out.writeBytes((line + System.lineSeparator()).getBytes(StandardCharsets.UTF_8));
      }
      out.flush();
      return all ? VcorfuCli.OK : VcorfuCli.FAILED;
    } catch (IOException | RuntimeException e) {
      return null; // PingCommand says what is wrong with the command line or the node
    }
  }
}
