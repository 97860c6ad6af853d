package io.vcorfu.client.testing;

import io.vcorfu.client.GlobalEntry;
import io.vcorfu.client.StreamLog;
import io.vcorfu.layout.Layout;
import io.vcorfu.logunit.ReplicaStore;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.inmemory.FaultRule;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import io.vcorfu.protocol.proto.Request;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** Helpers shared by the tests that break the chain protocol's messages on purpose. */
public final class ChainFaults {
  private ChainFaults() {}

  /**
   * Drops the commit messages writers send on their own (commits no later write carried), until the
   * returned rule is removed: the copies stay uncommitted for readers to decide.
   */
  public static FaultRule dropCommitMessages(InJvmTransport transport) {
    return transport
        .faults()
        .add(
            FaultRule.requests()
                .ofCase(Request.PayloadCase.CHAIN_WRITE)
                .when(q -> ReplicaStore.commitsOnly(q.getChainWrite()))
                .drop());
  }

  /**
   * Two streams named {@code prefix-...} on different stream chains, the first on a lower chain
   * index: an entry written to both is decided by the second stream's replica.
   */
  public static List<StreamId> earlierAndDeciding(Layout layout, String prefix) {
    StreamId a = StreamId.of(prefix + "-0");
    for (int i = 1; ; i++) {
      StreamId b = StreamId.of(prefix + "-" + i);
      int ca = layout.streamChainIndex(a);
      int cb = layout.streamChainIndex(b);
      if (ca < cb) {
        return List.of(a, b);
      }
      if (cb < ca) {
        return List.of(b, a);
      }
    }
  }

  /** How many entries of the global log, from 0 up to its tail, hold {@code value}. */
  public static long copiesInLog(StreamLog log, String value) {
    long tail = log.tails(List.of()).join().globalTail();
    if (tail < 0) {
      return 0;
    }
    List<GlobalEntry> all = log.readGlobalRange(0, tail).join();
    return all.stream()
        .filter(e -> !e.isHole() && new String(e.payload(), StandardCharsets.UTF_8).equals(value))
        .count();
  }
}
