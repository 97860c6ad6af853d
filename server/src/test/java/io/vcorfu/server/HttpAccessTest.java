package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The HTTP server under a node's endpoints, spoken to over raw sockets: a quiet connection is
 * closed, and requests it cannot read are refused with a status and never reach a route.
 */
class HttpAccessTest {
  private final AtomicInteger answered = new AtomicInteger();

  private HttpAccess start(Duration idle) throws Exception {
    return HttpAccess.start(
        "127.0.0.1",
        0,
        null,
        null,
        path -> {
          answered.incrementAndGet();
          return HttpAccess.Reply.text(200, "at " + path + "\n");
        },
        idle);
  }

  /** Everything the server sends until it closes the connection (a read timeout fails the test). */
  private static String untilClosed(Socket s) throws Exception {
    s.setSoTimeout(10_000);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    InputStream in = s.getInputStream();
    byte[] buf = new byte[4096];
    for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
      out.write(buf, 0, n);
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  /**
   * Sends {@code request} on a new connection and returns all the server sent until it closed. A
   * connection closed with nothing sent, before the request reached a route, was quiet for the idle
   * time as the server saw it (this JVM or its host stalled between the connect and the write: a
   * collection, a busy machine), which is the server keeping its rule: it is tried again, at most
   * five times, so that a server that never answers still fails the test.
   */
  private String exchange(HttpAccess http, String request) throws Exception {
    String got = "";
    for (int attempt = 0; attempt < 5 && got.isEmpty(); attempt++) {
      int before = answered.get();
      try (Socket s = new Socket("127.0.0.1", http.port())) {
        s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
        got = untilClosed(s);
      }
      if (got.isEmpty() && answered.get() != before) {
        break; // the request reached the route and nothing came back: that is a failure
      }
    }
    return got;
  }

  @Test
  void aKeptConnectionThatGoesQuietIsClosedAfterItsAnswer() throws Exception {
    try (HttpAccess http = start(Duration.ofMillis(300))) {
      String got = exchange(http, "GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
      assertThat(got).startsWith("HTTP/1.1 200").contains("keep-alive").endsWith("at /health\n");
    }
    assertThat(answered).hasValue(1);
  }

  @Test
  void aConnectionThatNeverSendsIsClosed() throws Exception {
    try (HttpAccess http = start(Duration.ofMillis(300));
        Socket s = new Socket("127.0.0.1", http.port())) {
      assertThat(untilClosed(s)).isEmpty();
    }
    assertThat(answered).hasValue(0);
  }

  @Test
  void requestsItCannotReadAreRefusedAndReachNoRoute() throws Exception {
    // Quiet connections close soon: a refused request with keep-alive keeps its connection open.
    try (HttpAccess http = start(Duration.ofMillis(500))) {
      String longLine = "GET /" + "a".repeat(10_000) + " HTTP/1.1\r\nHost: x\r\n\r\n";
      String bigBody =
          "PUT /health HTTP/1.1\r\nHost: x\r\nContent-Length: 70000\r\n\r\n" + "b".repeat(70_000);
      String closing = "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
      for (String[] c :
          new String[][] {
            {longLine, "HTTP/1.1 400"}, {bigBody, "HTTP/1.1 413"}, {closing, "HTTP/1.1 200"}
          }) {
        assertThat(exchange(http, c[0])).as(c[0].substring(0, 20)).startsWith(c[1]);
      }
    }
    assertThat(answered).as("only the readable GET reached the route").hasValue(1);
  }
}
