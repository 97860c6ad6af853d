package io.vcorfu.benchmarks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.watch.WatchEvent;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamWatch;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.netty.NettyTransport;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code vcorfu bench watch}: how soon a change reaches the watchers of what it changed. One writer
 * makes {@code --rate} changes a second, each waiting for its acknowledgement (vcorfu: an append to
 * one stream; etcd: a put of one key), and {@code --watchers} watchers, each on a client of its
 * own, follow it (vcorfu: a {@link StreamWatch}; etcd: a watch of the key, as {@code etcdctl watch}
 * does). Each change carries its number and the time it was sent; per watcher and change the
 * benchmark records the time of the callback, and reports, over the changes after the warm-up, the
 * latency from the send and from the writer's acknowledgement to the callback (the second can be
 * negative: a watcher may hear of a change before its writer does), and that every watcher saw
 * every change once and in order.
 */
@Command(
    name = "watch",
    mixinStandardHelpOptions = true,
    description =
        "Change-to-watcher latency: one writer (an append, or an etcd put) at --rate changes a"
            + " second, --watchers watchers on clients of their own.")
final class WatchBench extends ClusterBench {
  @Option(names = "--db", defaultValue = "vcorfu", description = "vcorfu or etcd.")
  String db;

  @Option(
      names = "--watchers",
      defaultValue = "4",
      description = "Watchers (default ${DEFAULT-VALUE}).")
  int watchers;

  @Option(
      names = "--rate",
      defaultValue = "200",
      description = "Changes a second (default ${DEFAULT-VALUE}).")
  int rate;

  @Option(
      names = "--warmup",
      defaultValue = "5",
      description = "Seconds before latencies count (default ${DEFAULT-VALUE}).")
  double warmup;

  @Option(
      names = "--size",
      defaultValue = "64",
      description = "Bytes per change, at least 16 (default ${DEFAULT-VALUE}).")
  int size;

  private static final String NAME = "bench-watch";

  /** Where a change is heard: the change number and when its watcher's callback ran. */
  interface Heard {
    void heard(long seq, long atNanos);
  }

  /** One side under test: watchers to start and a writer. */
  interface Side extends AutoCloseable {
    void watch(Heard heard) throws Exception;

    void write(byte[] change) throws Exception;

    @Override
    void close();
  }

  @Override
  public Integer call() throws Exception {
    if (watchers < 1 || rate < 1 || size < 16 || !(duration > 0) || !(warmup >= 0)) {
      throw new IllegalArgumentException(
          "--watchers and --rate must be at least 1, --size at least 16, --duration above 0 and"
              + " --warmup 0 or more");
    }
    int changes = (int) Math.ceil((warmup + duration) * rate);
    long[] sent = new long[changes];
    long[] acked = new long[changes];
    long[][] heard = new long[watchers][changes];
    int[][] times = new int[watchers][changes];
    int[] disorder = new int[watchers];
    long[] lastSeq = new long[watchers];
    Arrays.fill(lastSeq, -1);
    try (Side side = db.equals("etcd") ? new Etcd(endpoint) : new Vcorfu(endpoint, this)) {
      for (int w = 0; w < watchers; w++) {
        int me = w;
        side.watch(
            (seq, at) -> {
              if (seq < 0 || seq >= changes) {
                return;
              }
              synchronized (heard[me]) {
                if (times[me][(int) seq]++ == 0) {
                  heard[me][(int) seq] = at;
                }
                if (seq <= lastSeq[me]) {
                  disorder[me]++;
                }
                lastSeq[me] = Math.max(lastSeq[me], seq);
              }
            });
      }
      long start = System.nanoTime();
      long interval = 1_000_000_000L / rate;
      for (int i = 0; i < changes; i++) {
        long due = start + i * interval;
        long wait = due - System.nanoTime();
        if (wait > 0) {
          TimeUnit.NANOSECONDS.sleep(wait);
        }
        byte[] change = new byte[size];
        sent[i] = System.nanoTime();
        ByteBuffer.wrap(change).putLong(i).putLong(sent[i]);
        side.write(change);
        acked[i] = System.nanoTime();
      }
      long settle = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (System.nanoTime() < settle && !allHeard(heard, times, changes)) {
        TimeUnit.MILLISECONDS.sleep(20);
      }
    }
    int first = (int) Math.min(changes, Math.round(warmup * rate));
    List<LatencyRecorder> fromSend = new ArrayList<>();
    List<LatencyRecorder> fromAck = new ArrayList<>();
    long missing = 0;
    long duplicates = 0;
    long early = 0;
    long outOfOrder = 0;
    for (int w = 0; w < watchers; w++) {
      LatencyRecorder s = new LatencyRecorder();
      LatencyRecorder a = new LatencyRecorder();
      synchronized (heard[w]) {
        for (int i = 0; i < changes; i++) {
          if (times[w][i] == 0) {
            missing++;
            continue;
          }
          duplicates += times[w][i] - 1;
          if (i < first) {
            continue;
          }
          s.record(heard[w][i] - sent[i]);
          long afterAck = heard[w][i] - acked[i];
          if (afterAck < 0) {
            early++;
          }
          a.record(afterAck);
        }
        outOfOrder += disorder[w];
      }
      fromSend.add(s);
      fromAck.add(a);
    }
    ObjectNode result =
        BenchOutput.result("watch")
            .put("db", db)
            .put("watchers", watchers)
            .put("rate", rate)
            .put("changes", changes)
            .put("missing", missing)
            .put("duplicates", duplicates)
            .put("out_of_order", outOfOrder)
            .put("heard_before_ack", early);
    result.set("send_to_callback", LatencyRecorder.json(fromSend));
    result.set("ack_to_callback", LatencyRecorder.json(fromAck));
    output.print(
        result,
        String.format(
            "watch db %s watchers %d rate %d/s: %d changes, missing %d, duplicates %d, out of"
                + " order %d, heard before the writer's ack %d",
            db, watchers, rate, changes, missing, duplicates, outOfOrder, early),
        "  send to callback " + LatencyRecorder.summary(fromSend),
        "  ack to callback  "
            + LatencyRecorder.summary(fromAck)
            + " (negatives count as 0 in the percentiles)");
    return missing == 0 && duplicates == 0 && outOfOrder == 0 ? 0 : 1;
  }

  private static boolean allHeard(long[][] heard, int[][] times, int changes) {
    for (int w = 0; w < times.length; w++) {
      synchronized (heard[w]) {
        for (int i = 0; i < changes; i++) {
          if (times[w][i] == 0) {
            return false;
          }
        }
      }
    }
    return true;
  }

  /** The change number and send time a change carries. */
  private static void heardAt(byte[] change, Heard heard) {
    long at = System.nanoTime();
    heard.heard(ByteBuffer.wrap(change).getLong(), at);
  }

  /** vcorfu: appends to one stream, watchers on clients of their own. */
  private static final class Vcorfu implements Side {
    private final NettyTransport transport;
    private final List<ClusterStreamLog> logs = new ArrayList<>();
    private final List<Flow.Subscription> subscriptions = new ArrayList<>();
    private final ClusterStreamLog writer;
    private final StreamId stream = StreamId.of(NAME);
    private final String endpoint;
    private final WatchBench bench;

    Vcorfu(String endpoint, WatchBench bench) {
      this.endpoint = endpoint;
      this.bench = bench;
      this.transport = bench.transport();
      this.writer = connectAll(transport, endpoint, 1, bench.logOptions()).get(0);
      logs.add(writer);
    }

    @Override
    public void watch(Heard heard) throws Exception {
      ClusterStreamLog log = connectAll(transport, endpoint, 1, bench.logOptions()).get(0);
      logs.add(log);
      // From the address after now, so no append of the run is missed however late it starts.
      long now = log.tails(List.of()).get(30, TimeUnit.SECONDS).globalTail();
      StreamWatch.fromGlobal(log, List.of(stream), now + 1)
          .subscribe(
              new Flow.Subscriber<StreamEntry>() {
                @Override
                public void onSubscribe(Flow.Subscription s) {
                  synchronized (subscriptions) {
                    subscriptions.add(s);
                  }
                  s.request(Long.MAX_VALUE);
                }

                @Override
                public void onNext(StreamEntry e) {
                  heardAt(e.payload(), heard);
                }

                @Override
                public void onError(Throwable t) {
                  System.err.println("vcorfu: a watcher failed: " + t);
                }

                @Override
                public void onComplete() {}
              });
    }

    @Override
    public void write(byte[] change) throws Exception {
      writer.append(List.of(stream), change).get(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
      synchronized (subscriptions) {
        subscriptions.forEach(Flow.Subscription::cancel);
      }
      closeAll(logs);
      transport.close();
    }
  }

  /** etcd: puts of one key, watchers of the key on clients of their own. */
  private static final class Etcd implements Side {
    private final List<String> urls;
    private final List<Client> clients = new ArrayList<>();
    private final List<Watch.Watcher> watches = new ArrayList<>();
    private final Client writer;
    private final ByteSequence key = ByteSequence.from(NAME, StandardCharsets.UTF_8);

    Etcd(String endpoint) {
      this.urls =
          Arrays.stream(endpoint.split(","))
              .map(String::strip)
              .filter(e -> !e.isEmpty())
              .map(e -> e.contains("://") ? e : "http://" + e)
              .toList();
      this.writer = client();
    }

    private Client client() {
      Client c = Client.builder().endpoints(urls.toArray(String[]::new)).build();
      clients.add(c);
      return c;
    }

    @Override
    public void watch(Heard heard) throws Exception {
      Consumer<io.etcd.jetcd.watch.WatchResponse> onEvents =
          r -> {
            for (WatchEvent e : r.getEvents()) {
              if (e.getEventType() == WatchEvent.EventType.PUT) {
                heardAt(e.getKeyValue().getValue().getBytes(), heard);
              }
            }
          };
      // From the revision after now, so no put of the run is missed however late the watch starts.
      long now = writer.getKVClient().get(key).get(30, TimeUnit.SECONDS).getHeader().getRevision();
      watches.add(
          client()
              .getWatchClient()
              .watch(
                  key,
                  io.etcd.jetcd.options.WatchOption.builder().withRevision(now + 1).build(),
                  onEvents));
    }

    @Override
    public void write(byte[] change) throws Exception {
      writer.getKVClient().put(key, ByteSequence.from(change)).get(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
      watches.forEach(Watch.Watcher::close);
      clients.forEach(Client::close);
    }
  }
}
