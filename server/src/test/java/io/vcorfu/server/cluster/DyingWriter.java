package io.vcorfu.server.cluster;

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
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A writer process for {@link DyingWritersProcessTest}, meant to be killed with SIGKILL mid-write:
 * {@code THREADS} threads append without end, each append writing its copies itself (no sequencer
 * write), to two of the streams {@code dying-0..3}, values {@code TAG-i}; for each acknowledged one
 * it writes {@code ack VALUE GLOBAL STREAM:ADDRESS...} to {@code FILE}, flushed at once. Arguments:
 * ENDPOINT TAG THREADS FILE.
 */
public final class DyingWriter {
  static final int STREAMS = 4;

  private DyingWriter() {}

  static StreamId stream(int i) {
    return StreamId.of("dying-" + i);
  }

  public static void main(String[] args) throws Exception {
    Endpoint seed = Endpoint.parse(args[0]);
    String tag = args[1];
    int threads = Integer.parseInt(args[2]);
    StreamLogOptions options =
        StreamLogOptions.defaults()
            .withSequencerWrites(false)
            .withRpc(ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(2)));
    AtomicLong next = new AtomicLong();
    AtomicLong failures = new AtomicLong();
    try (NettyTransport transport = new NettyTransport();
        ClusterStreamLog log = ClusterStreamLog.connect(transport, seed, options);
        BufferedWriter out = Files.newBufferedWriter(Path.of(args[3]), StandardCharsets.UTF_8)) {
      Runnable writer =
          () -> {
            Random random = new Random();
            while (true) {
              int a = random.nextInt(STREAMS);
              int b = (a + 1 + random.nextInt(STREAMS - 1)) % STREAMS;
              String value = tag + "-" + next.getAndIncrement();
              try {
                AppendResult r =
                    log.append(
                            List.of(stream(a), stream(b)), value.getBytes(StandardCharsets.UTF_8))
                        .join();
                StringBuilder line = new StringBuilder("ack " + value + " " + r.globalAddress());
                r.streamAddresses()
                    .forEach((s, at) -> line.append(' ').append(s).append(':').append(at));
                synchronized (out) {
                  out.write(line.append('\n').toString());
                  out.flush();
                }
              } catch (RuntimeException | java.io.IOException e) {
                // An append that failed: its outcome is the log's to decide.
                if (failures.incrementAndGet() <= 5) {
                  e.printStackTrace();
                }
              }
            }
          };
      for (int t = 0; t < threads; t++) {
        Thread th = new Thread(writer, "writer-" + t);
        th.setDaemon(true);
        th.start();
      }
      new java.util.concurrent.CountDownLatch(1).await(); // until the test kills this process
    }
  }
}
