package io.vcorfu.protocol.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.TlsException;
import io.vcorfu.protocol.TlsOptions;
import io.vcorfu.protocol.Transport.ServerBinding;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.protocol.testing.EchoHandler;
import io.vcorfu.protocol.testing.Messages;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS on the Netty transport over real sockets: mutual authentication (who is refused and that the
 * server stays healthy), the principal kept on the connection, rotation of the node's files without
 * a restart, and the errors bad files give.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NettyTlsTest {
  private static final Endpoint ANY_PORT = new Endpoint("127.0.0.1", 0);
  private static final ClientOptions QUICK =
      ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(5));

  @TempDir Path dir;

  private final TestCertificates.Authority ca = TestCertificates.authority("test CA");
  private final AtomicInteger served = new AtomicInteger();
  private TlsOptions nodeTls;
  private NettyTransport node;
  private NettyTransport.Binding server;

  @BeforeEach
  void start() throws Exception {
    Files.createDirectories(dir.resolve("node"));
    nodeTls = ca.write(dir.resolve("node"), "node", ca.issue("node-1"));
    node = new NettyTransport(nodeTls);
    EchoHandler echo = new EchoHandler("node-1");
    server =
        (NettyTransport.Binding)
            node.bind(
                ANY_PORT,
                request -> {
                  served.incrementAndGet();
                  return echo.handle(request);
                });
  }

  @AfterEach
  void stop() {
    node.close();
  }

  private TlsOptions client(
      String name, TestCertificates.Authority issuer, TestCertificates.Issued id) throws Exception {
    Path d = Files.createDirectories(dir.resolve(name));
    TlsOptions own = issuer.write(d, name, id);
    // Every client trusts the node's authority; only its own certificate varies.
    return new TlsOptions(nodeTls.ca(), own.cert(), own.key());
  }

  private Response ping(TlsOptions tls) {
    try (NettyTransport t = new NettyTransport(tls);
        RpcClient c = t.newClient(QUICK)) {
      return c.call(server.endpoint(), Messages.ping()).get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw (RuntimeException) e.getCause();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private void assertStillServesAGoodClient() throws Exception {
    int before = served.get();
    assertThat(ping(client("good", ca, ca.issue("good client"))).getPing().getNodeId())
        .isEqualTo("node-1");
    assertThat(served.get()).isEqualTo(before + 1);
  }

  @Test
  void aClientWithACertificateOfTheNodesAuthorityIsServedAndNamedByItsSubject() throws Exception {
    TestCertificates.Issued id = ca.issue("app-server-7");
    TlsOptions tls = client("app", ca, id);
    try (NettyTransport t = new NettyTransport(tls);
        RpcClient c = t.newClient(QUICK)) {
      Response r = c.call(server.endpoint(), Messages.ping()).get(10, TimeUnit.SECONDS);
      assertThat(r.getPing().getNodeId()).isEqualTo("node-1");
      assertThat(server.principals()).containsExactly(id.subject());
      assertThat(id.subject()).contains("CN=app-server-7");
    }
    assertThat(served.get()).isEqualTo(1);
  }

  @Test
  void aClientWithoutACertificateIsRefusedAndNothingIsServed() throws Exception {
    TlsOptions anonymous = TlsOptions.trusting(nodeTls.ca());
    assertThatThrownBy(() -> ping(anonymous))
        .isInstanceOf(TlsException.class)
        .hasMessageContaining("TLS with " + server.endpoint() + " failed");
    assertThat(served.get()).isZero();
    assertStillServesAGoodClient();
  }

  @Test
  void aClientWithACertificateFromAnotherAuthorityIsRefused() throws Exception {
    TestCertificates.Authority other = TestCertificates.authority("other CA");
    TlsOptions stranger = client("stranger", other, other.issue("stranger"));
    assertThatThrownBy(() -> ping(stranger)).isInstanceOf(TlsException.class);
    assertThat(served.get()).isZero();
    assertStillServesAGoodClient();
  }

  @Test
  void aClientWithAnExpiredCertificateIsRefused() throws Exception {
    Instant now = Instant.now();
    TestCertificates.Issued expired =
        ca.issue("expired client", now.minus(Duration.ofDays(3)), now.minus(Duration.ofDays(1)));
    Path d = Files.createDirectories(dir.resolve("expired"));
    TlsOptions tls =
        new TlsOptions(
            nodeTls.ca(),
            expired.writeCert(d.resolve("c.pem")),
            expired.writeKey(d.resolve("c.key")));
    // The client's own check refuses the file first; a client that skipped it is refused by the
    // node: a raw JDK socket presenting the expired certificate.
    assertThatThrownBy(() -> new NettyTransport(tls))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("expired");
    assertThatThrownBy(() -> rawHandshake(expired)).isInstanceOf(javax.net.ssl.SSLException.class);
    assertThat(served.get()).isZero();
    assertStillServesAGoodClient();
  }

  @Test
  void aPlaintextClientIsRefusedAndAClientTrustingAnotherAuthorityRefusesTheNode()
      throws Exception {
    try (NettyTransport plain = new NettyTransport();
        RpcClient c = plain.newClient(QUICK)) {
      // Answered at once with what to give (not left to the request timeout), every call alike.
      long started = System.nanoTime();
      List<CompletableFuture<Response>> calls = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        calls.add(c.call(server.endpoint(), Messages.ping()));
      }
      for (CompletableFuture<Response> call : calls) {
        assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
            .hasCauseInstanceOf(TlsException.class)
            .hasMessageContaining("TLS with " + server.endpoint() + " failed")
            .hasMessageContaining("--tls-ca");
      }
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(QUICK.requestTimeout());
    }
    TestCertificates.Authority other = TestCertificates.authority("other CA");
    TlsOptions trustsOther =
        other.write(
            Files.createDirectories(dir.resolve("other")), "c", other.issue("other client"));
    assertThatThrownBy(() -> ping(trustsOther))
        .isInstanceOf(TlsException.class)
        .hasMessageContaining("failed");
    assertThat(served.get()).isZero();
    assertStillServesAGoodClient();
  }

  @Test
  void aNodeWhoseCertificateNamesAnotherHostIsRefusedByItsClients() throws Exception {
    Path d = Files.createDirectories(dir.resolve("elsewhere"));
    TlsOptions elsewhere =
        ca.write(
            d,
            "elsewhere",
            ca.issueFor("node-9", new org.bouncycastle.asn1.x509.GeneralName(2, "node-9.example")));
    AtomicInteger servedThere = new AtomicInteger();
    try (NettyTransport other = new NettyTransport(elsewhere)) {
      ServerBinding there =
          other.bind(
              ANY_PORT,
              request -> {
                servedThere.incrementAndGet();
                return new EchoHandler("node-9").handle(request);
              });
      try (NettyTransport t = new NettyTransport(client("c", ca, ca.issue("c")));
          RpcClient c = t.newClient(QUICK)) {
        assertThatThrownBy(
                () -> c.call(there.endpoint(), Messages.ping()).get(10, TimeUnit.SECONDS))
            .hasCauseInstanceOf(TlsException.class)
            .hasMessageContaining("does not name 127.0.0.1");
      }
    }
    assertThat(servedThere).hasValue(0);
    assertStillServesAGoodClient();
  }

  @Test
  void aTlsClientOfAPlaintextServerFailsWithATlsErrorAtOnce() throws Exception {
    try (NettyTransport plain = new NettyTransport()) {
      ServerBinding plainServer = plain.bind(ANY_PORT, new EchoHandler("plain"));
      try (NettyTransport t = new NettyTransport(client("c", ca, ca.issue("c")));
          RpcClient c = t.newClient(QUICK)) {
        long started = System.nanoTime();
        assertThatThrownBy(
                () -> c.call(plainServer.endpoint(), Messages.ping()).get(10, TimeUnit.SECONDS))
            .hasCauseInstanceOf(TlsException.class)
            .hasMessageContaining("does the node speak TLS");
        assertThat(Duration.ofNanos(System.nanoTime() - started))
            .isLessThan(QUICK.requestTimeout());
      }
    }
  }

  @Test
  void replacedNodeFilesServeNewConnectionsWithoutARestart() throws Exception {
    TestCertificates.Issued good = ca.issue("good client");
    assertThat(serverCertificate(good).getSubjectX500Principal().getName()).contains("CN=node-1");
    try (NettyTransport t = new NettyTransport(client("kept", ca, ca.issue("kept client")));
        RpcClient kept = t.newClient(QUICK)) {
      kept.call(server.endpoint(), Messages.ping()).get(10, TimeUnit.SECONDS);

      TestCertificates.Issued renewed = ca.issue("node-1 renewed");
      renewed.writeKey(nodeTls.key());
      renewed.writeCert(nodeTls.cert());

      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () -> serverCertificate(good).getSubjectX500Principal().getName(),
              s -> s.contains("CN=node-1 renewed"));
      // The connection opened before the rotation still serves.
      assertThat(
              kept.call(server.endpoint(), Messages.ping())
                  .get(10, TimeUnit.SECONDS)
                  .getPing()
                  .getNodeId())
          .isEqualTo("node-1");
    }
  }

  @Test
  void rotatingTheNodesFilesUnderLoadFailsNoCall() throws Exception {
    TlsOptions tls = client("load", ca, ca.issue("load client"));
    java.util.concurrent.atomic.AtomicBoolean done =
        new java.util.concurrent.atomic.AtomicBoolean();
    java.util.List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
    AtomicInteger kept = new AtomicInteger();
    AtomicInteger fresh = new AtomicInteger();
    try (NettyTransport t = new NettyTransport(tls);
        RpcClient steady = t.newClient(QUICK)) {
      // One connection kept open, and a new connection (a new client) for every call.
      Thread keptLoad =
          new Thread(
              () -> {
                while (!done.get()) {
                  try {
                    steady.call(server.endpoint(), Messages.ping()).get(10, TimeUnit.SECONDS);
                    kept.incrementAndGet();
                  } catch (Exception e) {
                    failures.add(e);
                  }
                }
              });
      Thread freshLoad =
          new Thread(
              () -> {
                while (!done.get()) {
                  try (RpcClient c = t.newClient(QUICK)) {
                    c.call(server.endpoint(), Messages.ping()).get(10, TimeUnit.SECONDS);
                    fresh.incrementAndGet();
                  } catch (Exception e) {
                    failures.add(e);
                  }
                }
              });
      keptLoad.start();
      freshLoad.start();
      try {
        for (int i = 1; i <= 5; i++) {
          int before = fresh.get();
          TestCertificates.Issued renewed = ca.issue("node-1 v" + i);
          // Key first, then certificate: in between the files do not match and the node keeps
          // serving with the previous pair.
          renewed.writeKey(nodeTls.key());
          renewed.writeCert(nodeTls.cert());
          await()
              .atMost(Duration.ofSeconds(10))
              .until(() -> fresh.get() >= before + 20 || !failures.isEmpty());
        }
      } finally {
        done.set(true);
        keptLoad.join(20_000);
        freshLoad.join(20_000);
      }
    }
    assertThat(failures).isEmpty();
    assertThat(kept.get()).isPositive();
    assertThat(fresh.get()).isGreaterThanOrEqualTo(100);
    assertThat(serverCertificate(ca.issue("check")).getSubjectX500Principal().getName())
        .contains("CN=node-1 v5");
  }

  @Test
  void filesThatCannotBeUsedAfterAChangeKeepThePreviousOnes() throws Exception {
    TestCertificates.Issued good = ca.issue("good client");
    // A key that is not the certificate's: the node keeps serving with what it had.
    ca.issue("someone else").writeKey(nodeTls.key());
    assertThat(serverCertificate(good).getSubjectX500Principal().getName()).contains("CN=node-1");
    assertStillServesAGoodClient();
  }

  @Test
  void badFilesAreRefusedWithALineSayingWhatToDo() throws Exception {
    TestCertificates.Issued id = ca.issue("n");
    Path cert = id.writeCert(dir.resolve("n.pem"));
    Path key = id.writeKey(dir.resolve("n.key"));
    Path caFile = nodeTls.ca();
    Path text = Files.writeString(dir.resolve("notes.txt"), "not a certificate\n");
    Path otherKey = ca.issue("m").writeKey(dir.resolve("m.key"));

    assertThatThrownBy(() -> TlsContexts.load(new TlsOptions(dir.resolve("nope.pem"), cert, key)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("nope.pem does not exist");
    assertThatThrownBy(() -> TlsContexts.load(new TlsOptions(caFile, text, key)))
        .hasMessageContaining("notes.txt is not a PEM file");
    assertThatThrownBy(() -> TlsContexts.load(new TlsOptions(caFile, cert, cert)))
        .hasMessageContaining("holds no private key");
    assertThatThrownBy(() -> TlsContexts.load(new TlsOptions(caFile, cert, otherKey)))
        .hasMessageContaining("is not the key of the certificate")
        .hasMessageContaining("give the key the certificate was issued for");
    Path pkcs1 =
        Files.writeString(
            dir.resolve("rsa.key"),
            "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n");
    assertThatThrownBy(() -> TlsContexts.load(new TlsOptions(caFile, cert, pkcs1)))
        .hasMessageContaining("openssl pkcs8 -topk8 -nocrypt");
    assertThatThrownBy(() -> new TlsOptions(caFile, cert, null))
        .hasMessageContaining("--tls-cert and --tls-key");
    try (NettyTransport clientOnly = new NettyTransport(TlsOptions.trusting(caFile))) {
      assertThatThrownBy(() -> clientOnly.bind(ANY_PORT, new EchoHandler("x")))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("--tls-cert");
    }
  }

  @Test
  void optionsComeFromFlagsThenTheEnvironment() {
    Path a = Path.of("a.pem");
    Path b = Path.of("b.pem");
    Path k = Path.of("b.key");
    java.util.Map<String, String> env =
        java.util.Map.of(
            TlsOptions.CA_VARIABLE, "env-ca.pem",
            TlsOptions.CERT_VARIABLE, "env.pem",
            TlsOptions.KEY_VARIABLE, "env.key");
    assertThat(TlsOptions.fromFlags(null, null, null, java.util.Map.of())).isNull();
    assertThat(TlsOptions.fromFlags(a, b, k, env)).isEqualTo(new TlsOptions(a, b, k));
    assertThat(TlsOptions.fromFlags(null, null, null, env))
        .isEqualTo(new TlsOptions(Path.of("env-ca.pem"), Path.of("env.pem"), Path.of("env.key")));
    assertThat(TlsOptions.fromFlags(a, null, null, java.util.Map.of()))
        .isEqualTo(TlsOptions.trusting(a));
    assertThatThrownBy(() -> TlsOptions.fromFlags(null, b, k, java.util.Map.of()))
        .hasMessageContaining("--tls-ca");
  }

  /** The certificate the node presents to a new connection from a client holding {@code id}. */
  private X509Certificate serverCertificate(TestCertificates.Issued id) throws Exception {
    try (SSLSocket s = rawSocket(id)) {
      s.startHandshake();
      return (X509Certificate) s.getSession().getPeerCertificates()[0];
    }
  }

  /** A handshake, then a read, with {@code id} presented without the client's own checks. */
  private void rawHandshake(TestCertificates.Issued id) throws Exception {
    try (SSLSocket s = rawSocket(id)) {
      // With TLS 1.3 the node's verdict on a client certificate arrives after the handshake: as
      // its alert (read here), or, when the node has already closed the connection as the client's
      // last handshake message or this request is written, as a reset or a broken pipe. The
      // connection itself is made before, so a node that is not there fails otherwise.
      try {
        s.startHandshake();
        s.getOutputStream().write(new byte[] {0, 0, 0, 1, 0});
        s.getOutputStream().flush();
        if (s.getInputStream().read() < 0) {
          throw new javax.net.ssl.SSLException("the node closed the connection");
        }
      } catch (java.net.SocketException reset) {
        throw new javax.net.ssl.SSLException("the node reset the connection", reset);
      }
    }
  }

  private SSLSocket rawSocket(TestCertificates.Issued id) throws Exception {
    java.security.KeyStore keys = java.security.KeyStore.getInstance("PKCS12");
    keys.load(null, null);
    keys.setKeyEntry("id", id.key(), new char[0], new java.security.cert.Certificate[] {id.cert()});
    javax.net.ssl.KeyManagerFactory kmf =
        javax.net.ssl.KeyManagerFactory.getInstance(
            javax.net.ssl.KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(keys, new char[0]);
    java.security.KeyStore trusted = java.security.KeyStore.getInstance("PKCS12");
    trusted.load(null, null);
    trusted.setCertificateEntry("ca", ca.self().cert());
    javax.net.ssl.TrustManagerFactory tmf =
        javax.net.ssl.TrustManagerFactory.getInstance(
            javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trusted);
    javax.net.ssl.SSLContext ctx = javax.net.ssl.SSLContext.getInstance("TLS");
    ctx.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
    SSLSocket s =
        (SSLSocket)
            ctx.getSocketFactory().createSocket(server.endpoint().host(), server.endpoint().port());
    s.setSoTimeout(10_000);
    return s;
  }
}
