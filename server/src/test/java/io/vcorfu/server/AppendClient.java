package io.vcorfu.server;

import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.netty.NettyTransport;
import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A client process for {@link AppendIdempotenceProcessTest}: appends {@code COUNT} values {@code
 * TAG-i} one after another through {@code ENDPOINT}, writing {@code ack VALUE GLOBAL} for each
 * acknowledged one and {@code fail VALUE ERROR} for each that failed to {@code FILE}, flushed at
 * once, then {@code done}. Arguments: ENDPOINTS TAG COUNT FILE [TAG FILE]... (ENDPOINTS: one
 * endpoint or a comma-separated list, every one a seed). Each further TAG FILE pair is one more
 * client doing the same in this process, on a thread, transport and stream log of its own (a client
 * of its own to the nodes, whose identity is its stream log's), which saves a process start per
 * client; the process exits 0 once every client is done.
 */
public final class AppendClient {
  private AppendClient() {}

  public static void main(String[] args) throws Exception {
    List<Endpoint> seeds =
        java.util.Arrays.stream(args[0].split(",")).map(Endpoint::parse).toList();
    int count = Integer.parseInt(args[2]);
    List<Thread> clients = new java.util.ArrayList<>();
    java.util.concurrent.atomic.AtomicReference<Throwable> error =
        new java.util.concurrent.atomic.AtomicReference<>();
    for (int k = 1; k < args.length; k += k == 1 ? 3 : 2) {
      String tag = args[k];
      Path file = Path.of(args[k == 1 ? 3 : k + 1]);
      Thread t =
          new Thread(
              () -> {
                try {
                  append(seeds, tag, count, file);
                } catch (Throwable e) {
                  error.compareAndSet(null, e);
                }
              },
              "client-" + tag);
      t.start();
      clients.add(t);
    }
    for (Thread t : clients) {
      t.join();
    }
    if (error.get() != null) {
      error.get().printStackTrace();
      System.exit(1);
    }
    System.exit(0);
  }

  private static void append(List<Endpoint> seeds, String tag, int count, Path file)
      throws java.io.IOException {
    StreamLogOptions options =
        StreamLogOptions.defaults()
            .withRpc(ClientOptions.defaults().withRequestTimeout(Duration.ofMillis(500)))
            .withFailoverTimeout(Duration.ofSeconds(60));
    try (NettyTransport transport = new NettyTransport();
        ClusterStreamLog log = ClusterStreamLog.connect(transport, seeds, options);
        BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      for (int i = 0; i < count; i++) {
        String value = tag + "-" + i;
        try {
          AppendResult r =
              log.append(
                      List.of(StreamId.of("idempotence-" + (i % 4))),
                      value.getBytes(StandardCharsets.UTF_8))
                  .join();
          out.write("ack " + value + " " + r.globalAddress() + "\n");
        } catch (RuntimeException e) {
          out.write(
              "fail " + value + " " + String.valueOf(e.getMessage()).replace('\n', ' ') + "\n");
        }
        out.flush();
      }
      out.write("done\n");
    }
  }
}
