package io.vcorfu.protocol.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.embedded.EmbeddedChannel;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.Errors;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.RpcHandler;
import io.vcorfu.protocol.TlsException;
import io.vcorfu.protocol.TlsOptions;
import io.vcorfu.protocol.UnauthenticatedException;
import io.vcorfu.protocol.proto.AuthenticateRequest;
import io.vcorfu.protocol.proto.ErrorMsg;
import io.vcorfu.protocol.proto.Header;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.protocol.testing.EchoHandler;
import io.vcorfu.protocol.testing.Messages;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bearer tokens over real TLS sockets: a token names the principal of a client without a
 * certificate for every request of its connection, pipelined ones included; a token the node does
 * not accept, or none at all, serves nothing and fails unretried with a line saying what to do;
 * clients with certificates are served as before; a token is never sent without TLS.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BearerTokenTest {
  private static final Endpoint ANY_PORT = new Endpoint("127.0.0.1", 0);
  private static final ClientOptions QUICK =
      ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(5));
  private static final String GOOD = "k4Xq-good-token-of-alice";

  @TempDir Path dir;

  private final TestCertificates.Authority ca = TestCertificates.authority("test CA");
  private final Queue<String> principals = new ConcurrentLinkedQueue<>();
  private TlsOptions nodeTls;
  private NettyTransport node;
  private NettyTransport.Binding server;

  @BeforeEach
  void start() throws Exception {
    nodeTls = ca.write(Files.createDirectories(dir.resolve("node")), "node", ca.issue("node-1"));
    node = new NettyTransport(nodeTls);
    node.acceptBearerTokens(t -> t.equals(GOOD) ? "token:alice" : null);
    server = (NettyTransport.Binding) node.bind(ANY_PORT, recording());
  }

  @AfterEach
  void stop() {
    node.close();
  }

  private RpcHandler recording() {
    EchoHandler echo = new EchoHandler("node-1");
    return new RpcHandler() {
      @Override
      public CompletableFuture<Response> handle(Request request) {
        return echo.handle(request);
      }

      @Override
      public CompletableFuture<Response> handle(Request request, String principal) {
        principals.add(String.valueOf(principal));
        return echo.handle(request);
      }
    };
  }

  private TlsOptions withToken(String token) throws Exception {
    Path file = dir.resolve("token-" + Math.abs(token.hashCode()));
    Files.writeString(file, token + "\n");
    return TlsOptions.trusting(nodeTls.ca()).withToken(file);
  }

  private static Response ping(TlsOptions tls, Endpoint at) {
    try (NettyTransport t = new NettyTransport(tls);
        RpcClient c = t.newClient(QUICK)) {
      return Errors.check(c.call(at, Messages.ping()).get(10, TimeUnit.SECONDS));
    } catch (ExecutionException e) {
      throw (RuntimeException) e.getCause();
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void aTokenNamesThePrincipalOfEveryRequestOfItsConnectionPipelinedOnesIncluded()
      throws Exception {
    try (NettyTransport t = new NettyTransport(withToken(GOOD));
        RpcClient c = t.newClient(QUICK)) {
      // Sent at once, before the connection is even open: all queue behind the token.
      List<CompletableFuture<Response>> calls = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        calls.add(c.call(server.endpoint(), Messages.ping()));
      }
      for (CompletableFuture<Response> call : calls) {
        assertThat(call.get(10, TimeUnit.SECONDS).getPing().getNodeId()).isEqualTo("node-1");
      }
    }
    assertThat(principals).hasSize(50).containsOnly("token:alice");
  }

  @Test
  void aTokenTheNodeDoesNotAcceptServesNothingAndSaysWhatToDo() throws Exception {
    assertThatThrownBy(() -> ping(withToken("mistyped"), server.endpoint()))
        .isInstanceOf(UnauthenticatedException.class)
        .hasMessageContaining("authentication with " + server.endpoint() + " failed")
        .hasMessageContaining("vcorfu token create");
    assertThat(principals).isEmpty();
    // The node is unharmed: a good token is served next.
    assertThat(ping(withToken(GOOD), server.endpoint()).getPing().getNodeId()).isEqualTo("node-1");
  }

  @Test
  void neitherCertificateNorTokenServesNothing() {
    TlsOptions anonymous = TlsOptions.trusting(nodeTls.ca());
    assertThatThrownBy(() -> ping(anonymous, server.endpoint()))
        .isInstanceOf(UnauthenticatedException.class)
        .hasMessageContaining("no principal")
        .hasMessageContaining("--token-file");
    assertThat(principals).isEmpty();
  }

  @Test
  void aClientWithACertificateIsStillServedByItsSubject() throws Exception {
    TestCertificates.Issued id = ca.issue("app-7");
    TlsOptions own = ca.write(Files.createDirectories(dir.resolve("app")), "app", id);
    TlsOptions tls = new TlsOptions(nodeTls.ca(), own.cert(), own.key());
    assertThat(ping(tls, server.endpoint()).getPing().getNodeId()).isEqualTo("node-1");
    assertThat(principals).containsExactly(id.subject());
  }

  @Test
  void aNodeThatAcceptsNoTokensStillRequiresCertificates() throws Exception {
    try (NettyTransport plainNode = new NettyTransport(nodeTls)) {
      Endpoint at = plainNode.bind(ANY_PORT, recording()).endpoint();
      assertThatThrownBy(() -> ping(withToken(GOOD), at)).isInstanceOf(TlsException.class);
    }
    assertThat(principals).isEmpty();
  }

  @Test
  void aTokenIsNeverSentWithoutTls() throws Exception {
    Path file = Files.writeString(dir.resolve("t"), GOOD);
    assertThatThrownBy(() -> TlsOptions.fromFlags(null, null, null, file, Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("only over TLS");
    try (NettyTransport plaintext = new NettyTransport()) {
      assertThatThrownBy(() -> plaintext.acceptBearerTokens(t -> "x"))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("need TLS");
    }
  }

  @Test
  void aCertificateAndATokenTogetherAreRefusedUpFront() throws Exception {
    Path file = Files.writeString(dir.resolve("t"), GOOD);
    assertThatThrownBy(() -> nodeTls.withToken(file))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not both");
  }

  @Test
  void anUnreadableOrEmptyTokenFileFailsTheCallsSayingWhichFile() throws Exception {
    Path empty = Files.writeString(dir.resolve("empty"), "\n");
    assertThatThrownBy(
            () -> ping(TlsOptions.trusting(nodeTls.ca()).withToken(empty), server.endpoint()))
        .isInstanceOf(UnauthenticatedException.class)
        .hasMessageContaining(empty.toString())
        .hasMessageContaining("holds no token");
    Path missing = dir.resolve("missing");
    assertThatThrownBy(
            () -> ping(TlsOptions.trusting(nodeTls.ca()).withToken(missing), server.endpoint()))
        .isInstanceOf(UnauthenticatedException.class)
        .hasMessageContaining("cannot read the bearer token file " + missing);
    assertThat(principals).isEmpty();
  }

  @Test
  void aConnectionsPrincipalNeverChanges() throws Exception {
    EmbeddedChannel ch =
        new EmbeddedChannel(new ServerRequestHandler(recording(), 1 << 20, t -> "token:mallory"));
    ch.attr(TlsContexts.PRINCIPAL).set("CN=app-7");
    ch.writeInbound(
        Request.newBuilder()
            .setHeader(Header.newBuilder().setRequestId(0))
            .setAuthenticate(AuthenticateRequest.newBuilder().setToken("any"))
            .build());
    Response answer = ch.readOutbound();
    assertThat(answer.getError().getErrorCase()).isEqualTo(ErrorMsg.ErrorCase.BAD_REQUEST);
    assertThat(Errors.toException(answer.getError())).hasMessageContaining("already authenticated");
    assertThat(ch.attr(TlsContexts.PRINCIPAL).get()).isEqualTo("CN=app-7");
    ch.finishAndReleaseAll();
  }
}
