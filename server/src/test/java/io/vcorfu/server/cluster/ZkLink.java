package io.vcorfu.server.cluster;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One node's TCP link to ZooKeeper, which a test can cut: while cut, every connection through it is
 * closed and new ones are closed as soon as they are accepted, as a network partition between the
 * node and ZooKeeper looks to the node's client; {@link #heal} lets connections through again.
 * ZooKeeper itself, and every other node's link, go on.
 */
final class ZkLink implements AutoCloseable {
  private final ServerSocket listener;
  private final InetSocketAddress zooKeeper;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private volatile boolean cut;
  private volatile boolean closed;
  private volatile SyncTrigger trigger;

  /** ZooKeeper's operation code of a {@code sync} request. */
  private static final int SYNC = 9;

  private record SyncTrigger(String path, boolean drop, Runnable action) {}

  /** A link to the (single) ZooKeeper server of {@code connectString} ({@code host:port}). */
  ZkLink(String connectString) throws IOException {
    int colon = connectString.lastIndexOf(':');
    this.zooKeeper =
        new InetSocketAddress(
            connectString.substring(0, colon),
            Integer.parseInt(connectString.substring(colon + 1)));
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::accept, "zk-link-" + listener.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** The connect string a node uses to reach ZooKeeper through this link. */
  String connectString() {
    return "127.0.0.1:" + listener.getLocalPort();
  }

  /** Closes every connection through the link and refuses new ones until {@link #heal}. */
  void cut() {
    cut = true;
    open.forEach(ZkLink::closeQuietly);
  }

  /** Lets connections through again. */
  void heal() {
    cut = false;
  }

  /**
   * The next time the node sends a {@code sync} of {@code path}, {@code action} runs before
   * anything else the node sends is forwarded; with {@code drop} that request never reaches
   * ZooKeeper, else it is forwarded first. Once only.
   */
  void onSync(String path, boolean drop, Runnable action) {
    trigger = new SyncTrigger(path, drop, action);
  }

  private void accept() {
    while (!closed) {
      Socket in;
      try {
        in = listener.accept();
      } catch (IOException e) {
        return; // closed
      }
      if (cut) {
        closeQuietly(in);
        continue;
      }
      Socket out = new Socket();
      try {
        out.connect(zooKeeper, 1_000);
      } catch (IOException e) {
        closeQuietly(in);
        closeQuietly(out);
        continue;
      }
      open.add(in);
      open.add(out);
      pump(in, out, this::requests);
      pump(out, in, ZkLink::bytes);
    }
  }

  /** What flows one way through a connection. */
  private interface Flow {
    void copy(InputStream from, OutputStream to) throws IOException;
  }

  /** Copies with {@code flow} from {@code from} to {@code to} until either closes; then both. */
  private void pump(Socket from, Socket to, Flow flow) {
    Thread t =
        new Thread(
            () -> {
              try (InputStream is = from.getInputStream();
                  OutputStream os = to.getOutputStream()) {
                flow.copy(is, os);
              } catch (IOException e) {
                // the connection ended
              } finally {
                open.remove(from);
                open.remove(to);
                closeQuietly(from);
                closeQuietly(to);
              }
            },
            "zk-link-pump");
    t.setDaemon(true);
    t.start();
  }

  private static void bytes(InputStream from, OutputStream to) throws IOException {
    byte[] buffer = new byte[8192];
    int n;
    while ((n = from.read(buffer)) >= 0) {
      to.write(buffer, 0, n);
      to.flush();
    }
  }

  /** The node's requests, frame by frame: the connect request, then requests (see the class). */
  private void requests(InputStream from, OutputStream to) throws IOException {
    DataInputStream in = new DataInputStream(from);
    DataOutputStream out = new DataOutputStream(to);
    boolean connected = false;
    while (true) {
      int length = in.readInt();
      byte[] frame = new byte[length];
      in.readFully(frame);
      SyncTrigger t = connected ? triggeredBy(frame) : null;
      connected = true;
      if (t == null || !t.drop()) {
        out.writeInt(length);
        out.write(frame);
        out.flush();
      }
      if (t != null) {
        t.action().run();
      }
    }
  }

  /** The trigger {@code frame} sets off (and disarms), or null. */
  private SyncTrigger triggeredBy(byte[] frame) throws IOException {
    SyncTrigger t = trigger;
    if (t == null || frame.length < 12) {
      return null;
    }
    DataInputStream request = new DataInputStream(new ByteArrayInputStream(frame));
    request.readInt(); // xid
    if (request.readInt() != SYNC) {
      return null;
    }
    byte[] path = new byte[request.readInt()];
    request.readFully(path);
    if (!new String(path, StandardCharsets.UTF_8).equals(t.path())) {
      return null;
    }
    trigger = null;
    return t;
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // closing anyway
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    listener.close();
    open.forEach(ZkLink::closeQuietly);
  }
}
