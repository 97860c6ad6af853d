package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.layout.LayoutChanges;
import io.vcorfu.layout.LayoutStore;
import io.vcorfu.layout.TestEnsembles;
import io.vcorfu.layout.ZkLayoutStore;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TlsException;
import io.vcorfu.protocol.TlsOptions;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.protocol.netty.TestCertificates;
import io.vcorfu.protocol.netty.TlsContexts;
import io.vcorfu.server.cluster.ClusterConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nodes serving over TLS with mutual authentication, on real sockets: a client with a certificate
 * of the nodes' authority appends and reads, a client without one is refused with nothing written,
 * the HTTP endpoints answer over HTTPS to certificate holders only, and a two-node ZooKeeper
 * cluster replicates over node-to-node TLS connections.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TlsNodeTest {
  @TempDir Path tmp;

  private final TestCertificates.Authority ca = TestCertificates.authority("cluster CA");

  private TlsOptions identity(String name) throws Exception {
    return ca.identityIn(tmp, name);
  }

  private static StreamLogOptions quick(TlsOptions tls) {
    return StreamLogOptions.defaults().withFailoverTimeout(Duration.ofSeconds(10)).withTls(tls);
  }

  private static List<String> read(ClusterStreamLog log, StreamId s) throws Exception {
    List<String> out = new ArrayList<>();
    for (StreamEntry e : log.readStream(s, 0, Long.MAX_VALUE).get(10, TimeUnit.SECONDS)) {
      out.add(new String(e.payload(), StandardCharsets.UTF_8));
    }
    return out;
  }

  @Test
  void aSingleNodeServesCertificateHoldersOnlyOverRpcAndHttps() throws Exception {
    TlsOptions nodeTls = identity("node");
    StreamId s = StreamId.of("tls/single");
    try (NettyTransport transport = new NettyTransport(nodeTls);
        Node node = Node.start(NodeConfig.inMemory(new Endpoint("127.0.0.1", 0)), transport)) {
      node.ready().join();
      try (ClusterStreamLog log =
          ClusterStreamLog.connect(node.endpoint(), quick(identity("app")))) {
        log.append(Set.of(s), "over tls".getBytes(StandardCharsets.UTF_8))
            .get(10, TimeUnit.SECONDS);
        assertThat(read(log, s)).containsExactly("over tls");
      }
      long tail = node.logTail();

      // No client certificate: refused at once (not retried for the failover timeout).
      long started = System.nanoTime();
      assertThatThrownBy(
              () ->
                  ClusterStreamLog.connect(
                      node.endpoint(), quick(TlsOptions.trusting(nodeTls.ca()))))
          .isInstanceOf(TlsException.class)
          .hasMessageContaining("refused this client's certificate");
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(8));
      assertThat(node.logTail()).isEqualTo(tail);

      try (NodeHttp http = NodeHttp.start(node, "127.0.0.1", 0, transport.tls(), null)) {
        assertThat(http.scheme()).isEqualTo("https");
        URI health = URI.create("https://127.0.0.1:" + http.port() + "/health");
        HttpClient holder =
            HttpClient.newBuilder()
                .sslContext(TlsContexts.load(identity("scraper")).jdkContext())
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        HttpResponse<String> ok =
            holder.send(
                HttpRequest.newBuilder(health).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(ok.statusCode()).isEqualTo(200);
        HttpClient anonymous =
            HttpClient.newBuilder()
                .sslContext(TlsContexts.load(TlsOptions.trusting(nodeTls.ca())).jdkContext())
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        assertThatThrownBy(
                () ->
                    anonymous.send(
                        HttpRequest.newBuilder(health).build(),
                        HttpResponse.BodyHandlers.ofString()))
            .isInstanceOf(java.io.IOException.class);
        HttpClient plain = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        assertThatThrownBy(
                () ->
                    plain.send(
                        HttpRequest.newBuilder(
                                URI.create("http://127.0.0.1:" + http.port() + "/health"))
                            .timeout(Duration.ofSeconds(5))
                            .build(),
                        HttpResponse.BodyHandlers.ofString()))
            .isInstanceOf(java.io.IOException.class);
      }

      // The node still serves a good client.
      try (ClusterStreamLog log =
          ClusterStreamLog.connect(node.endpoint(), quick(identity("app2")))) {
        assertThat(read(log, s)).containsExactly("over tls");
      }
    }
  }

  /**
   * The HTTPS port runs TLS on the node's own reloading material: a node certificate replaced on
   * disk is what new HTTPS connections see, without a restart, and they are served.
   */
  @Test
  void theHttpsPortServesTheNodesReplacedCertificateWithoutARestart() throws Exception {
    TlsOptions nodeTls = identity("node");
    try (NettyTransport transport = new NettyTransport(nodeTls);
        Node node = Node.start(NodeConfig.inMemory(new Endpoint("127.0.0.1", 0)), transport)) {
      node.ready().join();
      try (NodeHttp http = NodeHttp.start(node, "127.0.0.1", 0, transport.tls(), null)) {
        URI health = URI.create("https://127.0.0.1:" + http.port() + "/health");
        TlsOptions scraper = identity("scraper");
        java.util.function.Supplier<String> subject =
            () -> {
              // A new client and TLS context each time: a new connection, a full handshake (no
              // session resumed from a cache).
              HttpClient c =
                  HttpClient.newBuilder()
                      .sslContext(TlsContexts.load(scraper).jdkContext())
                      .connectTimeout(Duration.ofSeconds(5))
                      .build();
              try {
                HttpResponse<String> r =
                    c.send(
                        HttpRequest.newBuilder(health).timeout(Duration.ofSeconds(5)).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).isEqualTo(200);
                return ((java.security.cert.X509Certificate)
                        r.sslSession().orElseThrow().getPeerCertificates()[0])
                    .getSubjectX500Principal()
                    .getName();
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            };
        assertThat(subject.get()).contains("CN=node").doesNotContain("renewed");
        TestCertificates.Issued renewed = ca.issue("node renewed");
        renewed.writeKey(nodeTls.key());
        renewed.writeCert(nodeTls.cert());
        org.awaitility.Awaitility.await()
            .atMost(Duration.ofSeconds(10))
            .until(subject::get, s -> s.contains("CN=node renewed"));
      }
    }
  }

  @Test
  void withTokensTheHttpEndpointsServeACertificateOrAnAcceptedTokenAndRefuseTheRest()
      throws Exception {
    TlsOptions nodeTls = identity("node");
    String good = "s3cret-token-value";
    io.vcorfu.protocol.netty.BearerTokens tokens = t -> t.equals(good) ? "token:scraper" : null;
    try (NettyTransport transport = new NettyTransport(nodeTls);
        Node node = Node.start(NodeConfig.inMemory(new Endpoint("127.0.0.1", 0)), transport)) {
      node.ready().join();
      try (NodeHttp http = NodeHttp.start(node, "127.0.0.1", 0, transport.tls(), tokens)) {
        URI metrics = URI.create("https://127.0.0.1:" + http.port() + "/metrics");
        HttpClient holder =
            HttpClient.newBuilder()
                .sslContext(TlsContexts.load(identity("scraper")).jdkContext())
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        HttpClient noCertificate =
            HttpClient.newBuilder()
                .sslContext(TlsContexts.load(TlsOptions.trusting(nodeTls.ca())).jdkContext())
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        assertThat(status(holder, metrics, null)).isEqualTo(200);
        assertThat(status(noCertificate, metrics, "Bearer " + good)).isEqualTo(200);
        for (String header : new String[] {null, "Bearer wrong", "Bearer ", "Basic " + good}) {
          HttpResponse<String> refused =
              noCertificate.send(
                  request(metrics, header).build(), HttpResponse.BodyHandlers.ofString());
          assertThat(refused.statusCode()).as(String.valueOf(header)).isEqualTo(401);
          assertThat(refused.body())
              .isEqualTo(
                  "send a client certificate from the node's CA, or a token made with vcorfu"
                      + " token create in an 'Authorization: Bearer TOKEN' header\n");
          assertThat(refused.headers().firstValue("WWW-Authenticate")).contains("Bearer");
        }
        for (String path : new String[] {"/health", "/status.json", "/"}) {
          URI u = URI.create("https://127.0.0.1:" + http.port() + path);
          assertThat(status(noCertificate, u, null)).as(path).isEqualTo(401);
          assertThat(status(noCertificate, u, "Bearer " + good)).as(path).isEqualTo(200);
        }
      }
    }
  }

  private static HttpRequest.Builder request(URI uri, String authorization) {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10));
    return authorization == null ? b : b.header("Authorization", authorization);
  }

  private static int status(HttpClient client, URI uri, String authorization) throws Exception {
    return client
        .send(request(uri, authorization).build(), HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  @Test
  void aClusterReplicatesOverNodeToNodeTls() throws Exception {
    try (TestingServer zk = TestEnsembles.server()) {
      List<Endpoint> endpoints =
          List.of(
              new Endpoint("127.0.0.1", ServerProcess.freePort()),
              new Endpoint("127.0.0.1", ServerProcess.freePort()));
      try (ZkLayoutStore store =
          ZkLayoutStore.connect(zk.getConnectString(), "tls", Duration.ofSeconds(10))) {
        store
            .compareAndSet(LayoutStore.NO_VERSION, LayoutChanges.initial("tls", endpoints, 2))
            .get(10, TimeUnit.SECONDS);
      }
      List<NettyTransport> transports = new ArrayList<>();
      List<Node> nodes = new ArrayList<>();
      try {
        for (int i = 0; i < endpoints.size(); i++) {
          NettyTransport t = new NettyTransport(identity("node-" + i));
          transports.add(t);
          nodes.add(
              Node.start(
                  NodeConfig.durable(endpoints.get(i), tmp.resolve("data-" + i))
                      .inCluster(ClusterConfig.of(zk.getConnectString(), "tls")),
                  t));
        }
        for (Node n : nodes) {
          n.ready().get(60, TimeUnit.SECONDS);
        }
        StreamId s = StreamId.of("tls/replicated");
        try (ClusterStreamLog log =
            ClusterStreamLog.connect(
                endpoints, quick(identity("app")).withFailoverTimeout(Duration.ofSeconds(30)))) {
          for (int i = 0; i < 5; i++) {
            log.append(Set.of(s), ("entry " + i).getBytes(StandardCharsets.UTF_8))
                .get(30, TimeUnit.SECONDS);
          }
          assertThat(read(log, s))
              .containsExactly("entry 0", "entry 1", "entry 2", "entry 3", "entry 4");
        }
        // Both copies of every entry: the sequencer node wrote the other node's copy over TLS,
        // presenting its own certificate (a node refuses any connection without one).
        for (Node n : nodes) {
          assertThat(n.logTail()).isEqualTo(4);
        }
      } finally {
        for (Node n : nodes) {
          n.close();
        }
        for (NettyTransport t : transports) {
          t.close();
        }
      }
    }
  }
}
