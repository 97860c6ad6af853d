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
 * once, then {@code done}. Arguments: ENDPOINTS TAG COUNT FILE (ENDPOINTS: one endpoint or a
 * comma-separated list, every one a seed).
 */
public final class AppendClient {
  private AppendClient() {}

  public static void main(String[] args) throws Exception {
    List<Endpoint> seeds =
        java.util.Arrays.stream(args[0].split(",")).map(Endpoint::parse).toList();
    String tag = args[1];
    int count = Integer.parseInt(args[2]);
    Path file = Path.of(args[3]);
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
    System.exit(0);
  }
}
