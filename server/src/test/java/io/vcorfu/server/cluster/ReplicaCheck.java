package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.layout.LayoutCache;
import io.vcorfu.client.rpc.EpochRpc;
import io.vcorfu.client.rpc.ReplicaClient;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.Transport;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.StreamSlot;
import io.vcorfu.server.cluster.FaultWorkload.Acked;
import io.vcorfu.server.cluster.FaultWorkload.Tx;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Reads every replica of a layout directly (one request per replica and range, stamped with the
 * layout's epoch) and compares what each holds with what clients were acknowledged: the property a
 * layout change must keep is that every surviving replica of an entry's chains holds the entry the
 * writer was acknowledged for, and that no two replicas hold different decisions.
 */
final class ReplicaCheck implements AutoCloseable {
  private static final int RANGE = 4096;

  private final RpcClient rpc;
  private final ReplicaClient ops;
  private final Layout layout;

  ReplicaCheck(Transport transport, Layout layout) {
    this.layout = layout;
    this.rpc =
        transport.newClient(ClientOptions.defaults().withRequestTimeout(Duration.ofSeconds(5)));
    this.ops =
        new ReplicaClient(
            new EpochRpc(rpc, LayoutCache.of(rpc, layout), StreamId.of("replica-check")));
  }

  /** What {@code replica} answers for global addresses {@code from..to}, by address. */
  Map<Long, ReadResult> log(Endpoint replica, long from, long to) throws Exception {
    Map<Long, ReadResult> out = new TreeMap<>();
    for (long lo = from; lo <= to; lo += RANGE) {
      long hi = Math.min(to, lo + RANGE - 1);
      List<ReadResult> rs = ops.logRead(replica, lo, hi).get(10, TimeUnit.SECONDS);
      for (int i = 0; i < rs.size(); i++) {
        out.put(lo + i, rs.get(i));
      }
    }
    return out;
  }

  /** What {@code replica} answers for stream addresses {@code from..to} of {@code stream}. */
  Map<Long, ReadResult> stream(Endpoint replica, StreamId stream, long from, long to)
      throws Exception {
    Map<Long, ReadResult> out = new TreeMap<>();
    for (long lo = from; lo <= to; lo += RANGE) {
      long hi = Math.min(to, lo + RANGE - 1);
      for (ReadResult r : ops.streamRead(replica, stream, lo, hi).get(10, TimeUnit.SECONDS)) {
        out.put(r.getAddress(), r);
      }
    }
    return out;
  }

  /**
   * Asserts that every replica of the layout's chains holds every acknowledged append (by global
   * address on its log chain, by stream address on each of its streams' chains) and every committed
   * transaction (by global address, with a slot in {@code txStream}), identically; and that the
   * replicas of a chain never hold two different committed entries at one address.
   */
  void assertEveryReplicaHolds(List<Acked> appends, List<Tx> txs, StreamId txStream)
      throws Exception {
    long maxGlobal = -1;
    Map<StreamId, Long> maxStream = new HashMap<>();
    for (Acked a : appends) {
      maxGlobal = Math.max(maxGlobal, a.globalAddress());
      a.streamAddresses().forEach((s, x) -> maxStream.merge(s, x, Math::max));
    }
    for (Tx t : txs) {
      maxGlobal = Math.max(maxGlobal, t.commitAddress());
    }
    Map<Endpoint, Map<Long, ReadResult>> logs = new HashMap<>();
    for (Endpoint r : layout.logServers()) {
      logs.put(r, log(r, 0, maxGlobal));
    }
    Map<StreamId, Map<Endpoint, Map<Long, ReadResult>>> streams = new HashMap<>();
    for (Map.Entry<StreamId, Long> e : maxStream.entrySet()) {
      Map<Endpoint, Map<Long, ReadResult>> byReplica = new HashMap<>();
      for (Endpoint r : layout.streamChain(e.getKey())) {
        byReplica.put(r, stream(r, e.getKey(), 0, e.getValue()));
      }
      streams.put(e.getKey(), byReplica);
    }
    List<String> problems = new ArrayList<>();
    for (Acked a : appends) {
      long g = a.globalAddress();
      LogEntryMsg reference = null;
      for (Endpoint r : layout.logChain(g)) {
        ReadResult rr = logs.get(r).get(g);
        String why = notTheAppend(rr, a);
        if (why != null) {
          problems.add(a + ": log replica " + r + " " + why);
        } else if (reference == null) {
          reference = rr.getEntry();
        } else if (!reference.equals(rr.getEntry())) {
          problems.add(a + ": log replica " + r + " holds another copy: " + rr.getEntry());
        }
      }
      for (Map.Entry<StreamId, Long> slot : a.streamAddresses().entrySet()) {
        for (Endpoint r : layout.streamChain(slot.getKey())) {
          ReadResult rr = streams.get(slot.getKey()).get(r).get(slot.getValue());
          String why = notTheAppend(rr, a);
          if (why != null) {
            problems.add(a + ": stream replica " + r + " of " + slot.getKey() + " " + why);
          } else if (reference != null && !reference.equals(rr.getEntry())) {
            problems.add(a + ": stream replica " + r + " holds another copy: " + rr.getEntry());
          }
        }
      }
    }
    for (Tx t : txs) {
      long g = t.commitAddress();
      LogEntryMsg reference = null;
      for (Endpoint r : layout.logChain(g)) {
        ReadResult rr = logs.get(r).get(g);
        if (!held(rr)
            || rr.getEntry().getKind() != EntryKind.DATA
            || rr.getEntry().getGlobalAddress() != g
            || rr.getEntry().getSlotsList().stream()
                .noneMatch(s -> StreamId.fromMsg(s.getStream()).equals(txStream))) {
          problems.add(t + ": log replica " + r + " holds " + describe(rr));
        } else if (reference == null) {
          reference = rr.getEntry();
        } else if (!reference.equals(rr.getEntry())) {
          problems.add(t + ": log replica " + r + " holds another copy: " + rr.getEntry());
        }
      }
    }
    for (long g = 0; g <= maxGlobal; g++) {
      agree("global address " + g, layout.logChain(g), logs, g, problems);
    }
    for (Map.Entry<StreamId, Long> e : maxStream.entrySet()) {
      for (long x = 0; x <= e.getValue(); x++) {
        agree(
            e.getKey() + "@" + x,
            layout.streamChain(e.getKey()),
            streams.get(e.getKey()),
            x,
            problems);
      }
    }
    assertThat(problems)
        .as(
            "replicas of layout epoch %d that lack or differ on acknowledged writes (%d appends, %d"
                + " transactions checked)",
            layout.epoch(), appends.size(), txs.size())
        .isEmpty();
  }

  /** No two replicas of {@code chain} hold different committed entries at {@code address}. */
  private static void agree(
      String where,
      List<Endpoint> chain,
      Map<Endpoint, Map<Long, ReadResult>> held,
      long address,
      List<String> problems) {
    LogEntryMsg decided = null;
    for (Endpoint r : chain) {
      ReadResult rr = held.get(r).get(address);
      if (rr == null || rr.getStatus() != ReadResult.Status.COMMITTED) {
        continue;
      }
      if (decided == null) {
        decided = rr.getEntry();
      } else if (!decided.equals(rr.getEntry())) {
        problems.add(where + ": replicas of " + chain + " committed different entries");
      }
    }
  }

  private static boolean held(ReadResult rr) {
    return rr != null
        && (rr.getStatus() == ReadResult.Status.COMMITTED
            || rr.getStatus() == ReadResult.Status.UNCOMMITTED);
  }

  /** Null when {@code rr} holds the append {@code a}; else what is wrong. */
  static String notTheAppend(ReadResult rr, Acked a) {
    if (!held(rr) || rr.getEntry().getKind() != EntryKind.DATA) {
      return "holds " + describe(rr);
    }
    LogEntryMsg e = rr.getEntry();
    Map<StreamId, Long> slots = new HashMap<>();
    for (StreamSlot s : e.getSlotsList()) {
      slots.put(StreamId.fromMsg(s.getStream()), s.getStreamAddress());
    }
    if (e.getGlobalAddress() != a.globalAddress()
        || !e.getPayload().toString(StandardCharsets.UTF_8).equals(a.value())
        || !slots.equals(a.streamAddresses())) {
      return "holds another entry: " + describe(rr);
    }
    return null;
  }

  static String describe(ReadResult rr) {
    if (rr == null) {
      return "no answer";
    }
    if (!rr.hasEntry()) {
      return rr.getStatus().toString();
    }
    LogEntryMsg e = rr.getEntry();
    return rr.getStatus()
        + " "
        + e.getKind()
        + " at "
        + e.getGlobalAddress()
        + " '"
        + e.getPayload().toString(StandardCharsets.UTF_8)
        + "' slots "
        + e.getSlotsCount();
  }

  /** One read of one address: its result, or the error it failed with. */
  record Read(ReadResult result, Throwable error) {}

  /** What {@code replica} answers for global address {@code g}, or how asking it failed. */
  Read logAt(Endpoint replica, long g) {
    return read(ops.logRead(replica, g, g));
  }

  /** What {@code replica} answers for {@code stream}'s address {@code x}, or how it failed. */
  Read streamAt(Endpoint replica, StreamId stream, long x) {
    return read(ops.streamRead(replica, stream, x, x));
  }

  private static Read read(java.util.concurrent.CompletableFuture<List<ReadResult>> f) {
    try {
      List<ReadResult> rs = f.get(10, TimeUnit.SECONDS);
      assertThat(rs).hasSize(1);
      return new Read(rs.get(0), null);
    } catch (java.util.concurrent.ExecutionException e) {
      return new Read(null, e.getCause());
    } catch (Exception e) {
      return new Read(null, e);
    }
  }

  @Override
  public void close() {
    rpc.close();
  }
}
