package io.vcorfu.server.cli;

import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.proto.Header;
import io.vcorfu.protocol.proto.PingRequest;
import io.vcorfu.protocol.proto.PingResponse;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.protocol.proto.RunCommandRequest;
import io.vcorfu.protocol.proto.RunCommandResponse;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The quick path of a one-shot command against a node ({@link #READS} and {@link #WRITES}: {@code
 * vcorfu log append|read|tail|list|trim|pin|unpin|pins|head}, {@code vcorfu map
 * put|get|remove|scan|list|history|diff|fork|merge}, {@code vcorfu cluster status} without a watch;
 * {@code vcorfu ping} is {@link QuickPing}'s): instead of starting a client and an object runtime
 * in this JVM (most of a call's time: loading and interpreting a whole client), it sends the
 * command's arguments to the first node its {@code --endpoint} names, which runs the command with
 * the client its process keeps ({@link CommandHost}) and answers what the command printed and its
 * exit code. The caller pays a JVM start and two round trips.
 *
 * <p>The command runs in this JVM instead, exactly as without this path, whenever the node did not
 * run it: a command or an argument this path does not take ({@link #refusal}: any other command,
 * help, {@code -} or {@code @FILE}, an option naming a file of this machine), TLS or a token asked
 * for (options or {@code VCORFU_TLS_*}, {@code VCORFU_TOKEN_FILE}), {@code VCORFU_RUN_LOCAL} set,
 * an {@code --endpoint} or {@code --timeout} it cannot read, a node it cannot connect to or that
 * does not answer a ping first (within {@link #PING_TIMEOUT}: what accepted the connection may be a
 * proxy in front of a node that is gone, or a stopped node), a node that declines or answers an
 * error (a node with TLS, one too old to know the request, one busy), and a read whose answer never
 * came.
 *
 * <p>Invariant: a write ({@link #WRITES}) whose request reached the node is never run a second
 * time. When its answer does not come (the connection lost, or no answer within {@code --timeout}
 * and a margin), the node may or may not have run it; this prints so, naming the node and how to
 * check, and exits {@link VcorfuCli#FAILED} rather than running it again here.
 */
final class OneShot {
  /** Set to anything, every command runs in the calling JVM. */
  static final String RUN_LOCAL_VARIABLE = "VCORFU_RUN_LOCAL";

  /** The commands a node runs that change nothing: run here again when their answer is lost. */
  static final Map<String, Set<String>> READS =
      Map.of(
          "log",
          Set.of("read", "tail", "list", "pins", "head"),
          "map",
          Set.of("get", "scan", "list", "history", "diff"),
          "cluster",
          Set.of("status"));

  /** The commands a node runs that write: never run twice (see the class's invariant). */
  static final Map<String, Set<String>> WRITES =
      Map.of(
          "log",
          Set.of("append", "trim", "pin", "unpin"),
          "map",
          Set.of("put", "remove", "fork", "merge"));

  /** Options that name a file of the caller's machine (or pick TLS): such a command runs here. */
  static final Set<String> LOCAL_OPTIONS =
      Set.of("--value-file", "--tls-ca", "--tls-cert", "--tls-key", "--token-file");

  /** Environment variables that ask for TLS or a token: with one set, commands run here. */
  static final List<String> TLS_VARIABLES =
      List.of("VCORFU_TLS_CA", "VCORFU_TLS_CERT", "VCORFU_TLS_KEY", "VCORFU_TOKEN_FILE");

  /** The most arguments a node takes in one command. */
  static final int MAX_ARGS = 64;

  /** How long connecting to the node may take before the command runs here instead. */
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(1);

  /** How long the node's answer to the first ping may take before the command runs here. */
  static final Duration PING_TIMEOUT = Duration.ofSeconds(2);

  /** Beyond the command's {@code --timeout}: how much longer its answer is waited for. */
  static final Duration ANSWER_MARGIN = Duration.ofSeconds(10);

  /** The largest answer read (a write's output can carry a whole previous value, escaped). */
  static final int MAX_ANSWER_BYTES = 64 << 20;

  private OneShot() {}

  /**
   * Why a node does not run {@code args} for a caller, or null when it does: the rule both sides
   * apply, the caller before sending and the node ({@link CommandHost}) again on what it received.
   */
  static String refusal(List<String> args) {
    if (args.size() < 2 || !isRead(args) && !isWrite(args)) {
      return "runs only vcorfu log append|read|tail|list|trim|pin|unpin|pins|head, vcorfu map"
          + " put|get|remove|scan|list|history|diff|fork|merge and vcorfu cluster status";
    }
    if (args.size() > MAX_ARGS) {
      return "takes at most " + MAX_ARGS + " arguments";
    }
    for (String a : args.subList(2, args.size())) {
      if (a.equals("-") || a.startsWith("@")) {
        return "does not read standard input or argument files: " + a;
      }
      if (a.equals("-h") || a.equals("--help") || a.equals("-V") || a.equals("--version")) {
        return "does not print help";
      }
      int eq = a.indexOf('=');
      String name = eq < 0 ? a : a.substring(0, eq);
      if (LOCAL_OPTIONS.contains(name)) {
        return "does not read files of the caller's machine or speak TLS: " + a;
      }
      if (name.equals("--watch-ms")) {
        return "does not run a watch: " + a;
      }
    }
    return null;
  }

  static boolean isRead(List<String> args) {
    return args.size() >= 2 && READS.getOrDefault(args.get(0), Set.of()).contains(args.get(1));
  }

  static boolean isWrite(List<String> args) {
    return args.size() >= 2 && WRITES.getOrDefault(args.get(0), Set.of()).contains(args.get(1));
  }

  /**
   * Has the node run {@code args} and prints its output on {@code out} and {@code err}: the exit
   * code to exit with, or null when the command is to run in this JVM (nothing was run by a node,
   * or a read's answer was lost). {@code env} is the environment it was called with.
   */
  static Integer onNode(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
    List<String> list = List.of(args);
    if (env.containsKey(RUN_LOCAL_VARIABLE)) {
      return null;
    }
    for (String v : TLS_VARIABLES) {
      String value = env.get(v);
      if (value != null && !value.isEmpty()) {
        return null;
      }
    }
    if (!list.isEmpty() && list.get(0).equals("ping")) {
      return QuickPing.run(list, env, out);
    }
    if (refusal(list) != null) {
      return null;
    }
    Endpoint node;
    Duration timeout;
    try {
      String given = value(list, "--endpoint");
      if (given == null) {
        given = env.getOrDefault(Connection.ENDPOINT_VARIABLE, "127.0.0.1:9000");
      }
      node = Endpoint.parseList(given).get(0);
      String t = value(list, "--timeout");
      timeout = t == null ? Duration.ofSeconds(30) : new Connection.DurationConverter().convert(t);
    } catch (RuntimeException e) {
      return null; // run here: the command line says what is wrong with it
    }
    Socket s = new Socket();
    try {
      try {
        // A ping first: a connection that something accepted (a proxy in front of a node that is
        // gone, a node that is stopped) is found out before the command leaves.
        if (ping(s, node, PING_TIMEOUT) == null) {
          return null; // a node that does not serve plaintext callers
        }
        s.setSoTimeout((int) Math.min(Integer.MAX_VALUE, timeout.plus(ANSWER_MARGIN).toMillis()));
        send(
            s,
            Request.newBuilder().setRunCommand(RunCommandRequest.newBuilder().addAllArgs(list)),
            2);
      } catch (IOException e) {
        return null; // the whole command never left: nothing can have run
      }
      Response answer;
      try {
        answer = Response.parseFrom(readFrame(s.getInputStream()));
      } catch (IOException e) {
        if (isRead(list)) {
          return null;
        }
        err.println(
            "vcorfu: the node at "
                + node
                + " did not answer ("
                + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage())
                + "): the "
                + args[0]
                + " "
                + args[1]
                + " may or may not have been applied; read it back to check (with"
                + " VCORFU_RUN_LOCAL=1 commands run in this process)");
        return VcorfuCli.FAILED;
      }
      if (!answer.hasRunCommand() || answer.getRunCommand().getDeclined()) {
        return null;
      }
      RunCommandResponse r = answer.getRunCommand();
      out.writeBytes(r.getOut().toByteArray());
      out.flush();
      err.writeBytes(r.getErr().toByteArray());
      err.flush();
      return r.getExitCode();
    } finally {
      // Once the command may have run, nothing here sends it to run again: not even a failed close.
      try {
        s.close();
      } catch (IOException ignored) {
        // the answer, if any, is already in hand
      }
    }
  }

  /**
   * The value of option {@code name} in {@code args} ({@code name V} or {@code name=V}), or null.
   */
  static String value(List<String> args, String name) {
    for (int i = 2; i < args.size(); i++) {
      String a = args.get(i);
      if (a.equals("--")) {
        return null;
      }
      if (a.equals(name)) {
        if (i + 1 >= args.size()) {
          throw new IllegalArgumentException(name + " needs a value");
        }
        return args.get(i + 1);
      }
      if (a.startsWith(name + "=")) {
        return a.substring(name.length() + 1);
      }
    }
    return null;
  }

  /**
   * Connects {@code s} to {@code node} (within {@link #CONNECT_TIMEOUT}) and pings it: its answer,
   * or null when what answered is not a ping's (a node that serves no plaintext callers).
   */
  static PingResponse ping(Socket s, Endpoint node, Duration timeout) throws IOException {
    s.connect(new InetSocketAddress(node.host(), node.port()), (int) CONNECT_TIMEOUT.toMillis());
    s.setTcpNoDelay(true);
    s.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis())));
    send(s, Request.newBuilder().setPing(PingRequest.getDefaultInstance()), 1);
    Response r = Response.parseFrom(readFrame(s.getInputStream()));
    return r.hasPing() ? r.getPing() : null;
  }

  private static void send(Socket s, Request.Builder request, long id) throws IOException {
    byte[] bytes = request.setHeader(Header.newBuilder().setRequestId(id)).build().toByteArray();
    OutputStream o = s.getOutputStream();
    o.write(ByteBuffer.allocate(4 + bytes.length).putInt(bytes.length).put(bytes).array());
    o.flush();
  }

  private static byte[] readFrame(InputStream in) throws IOException {
    DataInputStream data = new DataInputStream(in);
    int length = data.readInt();
    if (length < 0 || length > MAX_ANSWER_BYTES) {
      throw new IOException("an answer of " + length + " bytes");
    }
    byte[] frame = new byte[length];
    data.readFully(frame);
    return frame;
  }
}
