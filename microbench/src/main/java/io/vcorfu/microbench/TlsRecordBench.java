package io.vcorfu.microbench;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.ssl.SslHandler;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.TlsOptions;
import io.vcorfu.protocol.netty.TlsContexts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What TLS adds to one hop of a message: a message of {@code payloadBytes} written on a client
 * channel and read on a server channel, each end with the node's own TLS handler ({@link
 * TlsContexts}, the engine {@code engine} names; {@code none} moves the same bytes with no TLS), so
 * one operation is one record sealed and one opened. Alone (written and flushed, as an append's
 * message at low concurrency goes) and as {@value #BATCH} messages flushed at once (one record or a
 * few for all of them, as a drained batch goes). The certificates are made at set-up by the {@code
 * openssl} command (EC P-256, one self-signed authority that is also the certificate both ends
 * present).
 */
public class TlsRecordBench extends Microbenchmark {
  static final int BATCH = 8;

  @Param({"openssl", "jdk", "none"})
  String engine;

  @Param({"1024"})
  int payloadBytes;

  private Path dir;
  private EmbeddedChannel client;
  private EmbeddedChannel server;
  private ByteBuf message;

  @Setup
  public void setUp() throws Exception {
    byte[] payload = new byte[payloadBytes];
    new Random(1).nextBytes(payload);
    message = PooledByteBufAllocator.DEFAULT.directBuffer(payloadBytes).writeBytes(payload);
    client = new EmbeddedChannel();
    server = new EmbeddedChannel();
    if (engine.equals("none")) {
      return;
    }
    System.setProperty(TlsContexts.ENGINE_PROPERTY, engine);
    dir = Files.createTempDirectory("tls-bench");
    Path cert = dir.resolve("cert.pem");
    Path key = dir.resolve("key.pem");
    openssl(
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-keyout",
        key.toString(),
        "-out",
        cert.toString(),
        "-days",
        "1",
        "-subj",
        "/CN=bench",
        "-addext",
        "subjectAltName=IP:127.0.0.1");
    TlsContexts tls = TlsContexts.load(new TlsOptions(cert, cert, key));
    SslHandler clientTls =
        tls.clientHandler(PooledByteBufAllocator.DEFAULT, Endpoint.parse("127.0.0.1:9000"));
    SslHandler serverTls = tls.serverHandler(PooledByteBufAllocator.DEFAULT, false);
    server.pipeline().addLast(serverTls);
    client.pipeline().addLast(clientTls);
    for (int i = 0;
        i < 100 && !(clientTls.handshakeFuture().isDone() && serverTls.handshakeFuture().isDone());
        i++) {
      shuttle(client, server);
      shuttle(server, client);
    }
    if (!clientTls.handshakeFuture().isSuccess() || !serverTls.handshakeFuture().isSuccess()) {
      throw new IllegalStateException(
          "handshake failed: "
              + clientTls.handshakeFuture().cause()
              + " / "
              + serverTls.handshakeFuture().cause());
    }
    shuttle(server, client); // session tickets and the like
    drain(client);
    drain(server);
  }

  private static void openssl(String... args) throws IOException, InterruptedException {
    List<String> cmd = new java.util.ArrayList<>(List.of("openssl"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException("openssl failed: " + out);
    }
  }

  /** Moves every byte {@code from} wrote into {@code to}'s inbound side. */
  private static void shuttle(EmbeddedChannel from, EmbeddedChannel to) {
    from.runPendingTasks();
    for (Object o = from.readOutbound(); o != null; o = from.readOutbound()) {
      to.writeInbound(o);
    }
    to.runPendingTasks();
  }

  /** Releases what reached {@code ch}'s inbound end; returns its bytes. */
  private static int drain(EmbeddedChannel ch) {
    int bytes = 0;
    for (Object o = ch.readInbound(); o != null; o = ch.readInbound()) {
      bytes += ((ByteBuf) o).readableBytes();
      ((ByteBuf) o).release();
    }
    return bytes;
  }

  @TearDown
  public void tearDown() throws IOException {
    client.finishAndReleaseAll();
    server.finishAndReleaseAll();
    message.release();
    if (dir != null) {
      try (var files = Files.list(dir)) {
        for (Path f : files.toList()) {
          Files.delete(f);
        }
      }
      Files.delete(dir);
    }
  }

  /** One message sealed, carried and opened. */
  @Benchmark
  public int oneMessage() {
    client.writeAndFlush(message.retainedDuplicate());
    shuttle(client, server);
    return drain(server);
  }

  /** {@value #BATCH} messages written, flushed once, carried and opened. */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public int batchOfMessages() {
    for (int i = 0; i < BATCH; i++) {
      client.write(message.retainedDuplicate());
    }
    client.flush();
    shuttle(client, server);
    return drain(server);
  }
}
