package io.vcorfu.server.cluster;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.rpc.EpochRpc;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.DamagedEntryException;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.ReadResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Reads from the source replicas the decided slots of one page of the closed log chains a {@link
 * Rebuilder} copies, as cheaply as a decision allows.
 */
final class DecidedLogPage {
  private DecidedLogPage() {}

  /**
   * The decided log slots of {@code [from, to]} of the given chains: read once from one serving
   * replica of those chains (committed DATA there is a decision: a commit bit is set only once the
   * whole chain holds the entry); every other slot read again through the repairing reader, which
   * decides it. (The repairing reader alone would ask every chain's last replica for the whole
   * range.)
   */
  static List<ReadResult> read(
      ClusterStreamLog log, Layout layout, long from, long to, Set<Integer> chains, int count) {
    long first = from;
    while (first < to && !chains.contains((int) (first % count))) {
      first++;
    }
    List<Endpoint> serving = layout.servingLog(first);
    Endpoint source = serving.get(serving.size() - 1);
    List<ReadResult> raw = new ArrayList<>();
    for (long a = from; a <= to; a += Rebuilder.PAGE) {
      long end = Math.min(to, a + Rebuilder.PAGE - 1);
      try {
        raw.addAll(log.ops().logRead(source, a, end).join());
      } catch (RuntimeException e) {
        if (!(EpochRpc.unwrap(e) instanceof DamagedEntryException)) {
          throw e;
        }
        // The source's copy of an entry of the page is damaged: the repairing reader reads the
        // page from another replica of the chain.
        raw.addAll(log.decidedGlobal(a, end).join());
      }
    }
    List<ReadResult> out = new ArrayList<>(raw.size());
    for (int i = 0; i < raw.size(); i++) {
      long address = from + i;
      ReadResult r = raw.get(i);
      if (!chains.contains((int) (address % count))) {
        continue;
      }
      boolean decided =
          r.getStatus() == ReadResult.Status.COMMITTED
              && r.getEntry().getKind() == EntryKind.DATA
              && layout.logChain(address).contains(source);
      out.add(
          decided
              ? r.toBuilder().setAddress(address).build()
              : log.decidedGlobal(address, address).join().get(0));
    }
    return out;
  }
}
