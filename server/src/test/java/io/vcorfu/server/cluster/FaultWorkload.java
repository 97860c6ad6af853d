package io.vcorfu.server.cluster;

import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.collections.SMRMap;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.TransactionAbortedException;
import io.vcorfu.runtime.VCorfuRuntime;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What runs against a cluster while a test injects a fault: {@code appenders} threads appending to
 * one or two of {@code streams} each time, and one thread running transactions (two puts into an
 * {@link SMRMap}) and plain puts through a {@link VCorfuRuntime}. Every outcome is recorded:
 * acknowledged, refused (an aborted transaction: nothing written) or unknown (an error, after which
 * the write may or may not have happened). Each thread stops after a bounded number of operations,
 * or when {@link #close} is called.
 */
final class FaultWorkload implements AutoCloseable {
  /** An acknowledged append. */
  record Acked(String value, long globalAddress, Map<StreamId, Long> streamAddresses) {}

  /** Transaction {@code n}: puts {@code tx<n>a = n} and {@code tx<n>b = n}. */
  record Tx(int n, long commitAddress) {}

  static final String MAP = "fault-map";
  private static final int MAX_OPERATIONS = 20_000;
  private static final StreamLogOptions OPTIONS =
      ZkCluster.clientOptions().withFailoverTimeout(Duration.ofSeconds(8));

  private final ZkCluster cluster;
  private final List<StreamId> streams;
  private final long seed;
  private final List<Thread> threads = new ArrayList<>();
  private volatile boolean stop;

  final List<Acked> appends = new CopyOnWriteArrayList<>();
  final AtomicInteger appendErrors = new AtomicInteger();
  final List<Tx> committed = new CopyOnWriteArrayList<>();
  final List<Integer> aborted = new CopyOnWriteArrayList<>();

  /** Transactions whose outcome is unknown (an error other than an abort). */
  final List<Integer> unknown = new CopyOnWriteArrayList<>();

  /** The first errors seen, for the report. */
  final List<String> errors = new CopyOnWriteArrayList<>();

  /** Plain puts ({@code put<n> = n}) acknowledged. */
  final List<Integer> puts = new CopyOnWriteArrayList<>();

  private FaultWorkload(ZkCluster cluster, List<StreamId> streams, long seed) {
    this.cluster = cluster;
    this.streams = List.copyOf(streams);
    this.seed = seed;
  }

  /** Starts {@code appenders} appending threads and the object thread. */
  static FaultWorkload start(ZkCluster c, List<StreamId> streams, int appenders, long seed) {
    FaultWorkload w = new FaultWorkload(c, streams, seed);
    List<Endpoint> nodes = c.endpoints();
    for (int k = 0; k < appenders; k++) {
      ClusterStreamLog log = c.client(nodes.get(k % nodes.size()), OPTIONS);
      Random rnd = new Random(seed + k);
      int id = k;
      w.threads.add(new Thread(() -> w.append(id, log, rnd), "appender-" + k));
    }
    VCorfuRuntime rt =
        VCorfuRuntime.using(ClusterStreamLog.connect(c.transport(), nodes.get(1), OPTIONS));
    w.threads.add(new Thread(() -> w.objects(rt), "objects"));
    w.threads.forEach(Thread::start);
    return w;
  }

  private void append(int id, ClusterStreamLog log, Random rnd) {
    for (int i = 0; i < MAX_OPERATIONS && !stop; i++) {
      List<StreamId> to = new ArrayList<>(List.of(streams.get(rnd.nextInt(streams.size()))));
      StreamId second = streams.get(rnd.nextInt(streams.size()));
      if (rnd.nextBoolean() && !to.contains(second)) {
        to.add(second);
      }
      String value = "a" + id + "-" + i;
      try {
        AppendResult r =
            log.append(to, value.getBytes(StandardCharsets.UTF_8)).get(20, TimeUnit.SECONDS);
        appends.add(new Acked(value, r.globalAddress(), Map.copyOf(r.streamAddresses())));
      } catch (Exception e) {
        appendErrors.incrementAndGet();
        note("append " + value, e);
      }
    }
  }

  private void objects(VCorfuRuntime rt) {
    try (rt) {
      SMRMap<String, Integer> map = SMRMap.open(rt, MAP);
      for (int n = 0; n < MAX_OPERATIONS && !stop; n++) {
        try {
          if (n % 3 == 2) {
            map.put("put" + n, n);
            puts.add(n);
            continue;
          }
          rt.TXBegin();
          map.put("tx" + n + "a", n);
          map.put("tx" + n + "b", n);
          committed.add(new Tx(n, rt.TXEnd()));
        } catch (TransactionAbortedException e) {
          aborted.add(n);
        } catch (RuntimeException e) {
          if (rt.inTransaction()) {
            rt.TXAbort();
          }
          if (n % 3 != 2) {
            unknown.add(n);
          }
          note("object operation " + n, e);
        }
      }
    } catch (RuntimeException e) {
      // Closing the runtime after an error in the last operation: that operation is recorded.
    }
  }

  private void note(String what, Exception e) {
    if (errors.size() < 5) {
      errors.add(
          java.time.LocalTime.now()
              + " "
              + what
              + ": "
              + io.vcorfu.client.rpc.EpochRpc.unwrap(
                  e instanceof java.util.concurrent.ExecutionException ? e.getCause() : e));
    }
  }

  /** Stops every thread and waits for it (each finishes its current operation, bounded). */
  @Override
  public void close() {
    stop = true;
    for (Thread t : threads) {
      try {
        t.join(TimeUnit.SECONDS.toMillis(60));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted while stopping " + t.getName(), e);
      }
      if (t.isAlive()) {
        throw new AssertionError(t.getName() + " did not stop within 60 s");
      }
    }
  }

  long seed() {
    return seed;
  }

  String summary() {
    return appends.size()
        + " appends acknowledged, "
        + appendErrors.get()
        + " failed; "
        + committed.size()
        + " transactions committed, "
        + aborted.size()
        + " aborted, "
        + unknown.size()
        + " unknown; "
        + puts.size()
        + " plain puts"
        + (errors.isEmpty() ? "" : "; first errors: " + errors);
  }
}
