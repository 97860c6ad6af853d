package io.vcorfu.server;

import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.netty.NettyTransport;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One in-memory node on a free 127.0.0.1 port, over TCP (Netty), serving once started. Use it
 * directly ({@link #start()}, then {@link #close()}), or register it with
 * {@code @RegisterExtension}: as a static field it runs for the whole test class, as an instance
 * field for each test. Shared with other modules' tests through the server's test-jar.
 */
public final class LocalNode
    implements AutoCloseable,
        BeforeAllCallback,
        AfterAllCallback,
        BeforeEachCallback,
        AfterEachCallback {
  private NettyTransport transport;
  private Node node;
  private boolean perClass;

  /** A node not started yet; register it as an extension, or call {@link #start()}. */
  public LocalNode() {}

  /** Starts a node on a free port and waits until it serves. */
  public static LocalNode start() {
    LocalNode n = new LocalNode();
    n.open();
    return n;
  }

  private void open() {
    transport = new NettyTransport();
    node = Node.start(NodeConfig.inMemory(new Endpoint("127.0.0.1", 0)), transport);
    node.ready().join();
  }

  /** The node's bound endpoint. */
  public Endpoint endpoint() {
    return node.endpoint();
  }

  public Node node() {
    return node;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    perClass = true;
    open();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    close();
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    if (!perClass) {
      open();
    }
  }

  @Override
  public void afterEach(ExtensionContext context) {
    if (!perClass) {
      close();
    }
  }

  @Override
  public void close() {
    if (node != null) {
      node.close();
      node = null;
    }
    if (transport != null) {
      transport.close();
      transport = null;
    }
  }
}
