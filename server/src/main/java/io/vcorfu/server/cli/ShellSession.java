package io.vcorfu.server.cli;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.runtime.RuntimeOptions;
import io.vcorfu.runtime.VCorfuRuntime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import picocli.CommandLine.Model.CommandSpec;

/**
 * What the lines of one {@code vcorfu shell} share, kept open from one line to the next: one
 * transport (its I/O threads) per TLS setting, and per target (the {@code --endpoint} list and
 * {@code --timeout} a line gives) one log client and one object runtime, each opened by the first
 * line that needs it. After a line that failed, {@link #reset} closes the clients, so the next line
 * connects afresh. Outside a shell there is none ({@link #of} is null) and every command opens and
 * closes its own.
 *
 * <p>A node's {@link CommandHost} keeps one too, pinned to the node's own endpoint: its commands
 * reach the cluster through that node whatever {@code --endpoint} they name (the caller's names for
 * the nodes need not resolve where the node runs), and read no environment variable of the node's
 * process ({@link #environment}).
 */
final class ShellSession implements AutoCloseable {
  /** One transport per TLS setting the lines use (the key null: plaintext). */
  private final Map<io.vcorfu.protocol.TlsOptions, NettyTransport> transports = new HashMap<>();

  private final Map<String, ClusterStreamLog> logs = new LinkedHashMap<>();

  /** The node every command of this session asks, whatever it names; null: the one it names. */
  private final io.vcorfu.protocol.Endpoint pinned;

  private final Map<String, VCorfuRuntime> runtimes = new LinkedHashMap<>();
  private int opened;

  /** A shell's session: each command asks the nodes it names. */
  ShellSession() {
    this(null);
  }

  /** A session whose commands all ask {@code node} (a command host's), or the nodes they name. */
  ShellSession(io.vcorfu.protocol.Endpoint node) {
    this.pinned = node;
  }

  /**
   * The environment variables {@code spec}'s command reads its defaults from: none in a command
   * host's session (the node's process environment is not the caller's), else this process's.
   */
  static Map<String, String> environment(CommandSpec spec) {
    ShellSession s = of(spec);
    return s != null && s.pinned != null ? Map.of() : System.getenv();
  }

  /** The node {@code spec}'s command runs on for a caller (a command host's), or null. */
  static io.vcorfu.protocol.Endpoint pinned(CommandSpec spec) {
    ShellSession s = of(spec);
    return s == null ? null : s.pinned;
  }

  /** The shell session {@code spec}'s command runs in, or null when it runs on its own. */
  static ShellSession of(CommandSpec spec) {
    if (spec == null) {
      return null;
    }
    return spec.root().userObject() instanceof VcorfuCli cli ? cli.session : null;
  }

  /**
   * The transport for {@code spec}'s command speaking {@code tls} (null: plaintext): the shell's,
   * else a new one closed with it.
   *
   * @throws IllegalArgumentException when the TLS files cannot be used (the message says why)
   */
  static Held<NettyTransport> transport(CommandSpec spec, io.vcorfu.protocol.TlsOptions tls) {
    ShellSession s = of(spec);
    return s == null ? Held.own(new NettyTransport(tls)) : Held.shared(s.transport(tls));
  }

  private synchronized NettyTransport transport(io.vcorfu.protocol.TlsOptions tls) {
    NettyTransport t = transports.get(tls);
    if (t == null) {
      t = new NettyTransport(tls);
      transports.put(tls, t);
    }
    return t;
  }

  /** A log client of {@code c}'s target: the one kept for it, opened the first time. */
  Held<ClusterStreamLog> log(Connection c) {
    return Held.shared(
        kept(
            logs,
            key(c),
            () -> {
              StreamLogOptions options = c.options();
              return ClusterStreamLog.connect(transport(options.tls()), endpoints(c), options);
            }));
  }

  /** An object runtime of {@code c}'s target: the one kept for it, opened the first time. */
  Held<VCorfuRuntime> runtime(Connection c) {
    return Held.shared(
        kept(
            runtimes,
            key(c),
            () -> {
              StreamLogOptions options = c.options();
              return VCorfuRuntime.using(
                  ClusterStreamLog.connect(transport(options.tls()), endpoints(c), options),
                  RuntimeOptions.defaults());
            }));
  }

  /** How many log clients and runtimes this session has opened so far (reuse opens none). */
  synchronized int opened() {
    return opened;
  }

  private List<io.vcorfu.protocol.Endpoint> endpoints(Connection c) {
    return pinned != null ? List.of(pinned) : c.endpoints.list();
  }

  private String key(Connection c) {
    String nodes = pinned != null ? pinned.toString() : c.endpoints.given();
    return nodes + " " + c.timeout.toMillis() + " " + c.tls.options();
  }

  private synchronized <T> T kept(Map<String, T> clients, String key, Supplier<T> open) {
    T client = clients.get(key);
    if (client == null) {
      client = open.get();
      clients.put(key, client);
      opened++;
    }
    return client;
  }

  /**
   * Closes the kept log clients and runtimes (the transports stay): after a line that failed, one
   * of them may be left waiting on a node that went away.
   */
  synchronized void reset() {
    List<AutoCloseable> all = new ArrayList<>(runtimes.values());
    all.addAll(logs.values());
    runtimes.clear();
    logs.clear();
    for (AutoCloseable c : all) {
      try {
        c.close();
      } catch (Exception | Error ignored) {
        // closing what failed: nothing more to say than the line's own error
      }
    }
  }

  @Override
  public void close() {
    reset();
    List<NettyTransport> all;
    synchronized (this) {
      all = new ArrayList<>(transports.values());
      transports.clear();
    }
    for (NettyTransport t : all) {
      t.close();
    }
  }

  /**
   * A client one command uses: its own (closed when the command ends) or the shell's (left open for
   * the next lines).
   */
  record Held<T extends AutoCloseable>(T get, boolean owned) implements AutoCloseable {
    static <T extends AutoCloseable> Held<T> own(T client) {
      return new Held<>(client, true);
    }

    static <T extends AutoCloseable> Held<T> shared(T client) {
      return new Held<>(client, false);
    }

    @Override
    public void close() {
      if (!owned) {
        return;
      }
      try {
        get.close();
      } catch (RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new IllegalStateException(e.getMessage(), e);
      }
    }
  }
}
