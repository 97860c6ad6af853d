package io.vcorfu.client.read;

import io.vcorfu.client.rpc.ReplicaClient;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.proto.ReadResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The slots of the global log, read from and repaired through the log chains that own each address,
 * for {@link RepairingReader}.
 */
final class GlobalSlots implements Slots {
  private final ReplicaClient ops;
  private final SlotDecider decider;

  GlobalSlots(ReplicaClient ops, SlotDecider decider) {
    this.ops = ops;
    this.decider = decider;
  }

  @Override
  public CompletableFuture<List<ReadResult>> read(long from, long to) {
    // Addresses are spread over log chains; ask every chain that owns part of the range for the
    // whole range and keep from each only the addresses it owns.
    var layout = ops.rpc().layout().current();
    Map<List<Endpoint>, CompletableFuture<List<ReadResult>>> byChain = new LinkedHashMap<>();
    List<List<Endpoint>> owner = new ArrayList<>((int) (to - from + 1));
    for (long a = from; a <= to; a++) {
      List<Endpoint> chain = layout.logChain(a);
      owner.add(chain);
      byChain.computeIfAbsent(
          chain,
          c ->
              OtherCopies.read(c, c.get(c.size() - 1), r -> ops.logRead(r, from, to))
                  .thenApply(l -> withAddresses(l, from)));
    }
    return CompletableFuture.allOf(byChain.values().toArray(CompletableFuture[]::new))
        .thenApply(
            v -> {
              List<ReadResult> out = new ArrayList<>(owner.size());
              for (int i = 0; i < owner.size(); i++) {
                out.add(byChain.get(owner.get(i)).join().get(i));
              }
              return out;
            });
  }

  @Override
  public CompletableFuture<ReadResult> repair(long address) {
    List<Endpoint> chain = ops.rpc().layout().current().logChain(address);
    return decider.fillChain(
        chain,
        0,
        r -> ops.logFill(r, address, false, 0),
        (entry, outcome) -> decider.settle(this, address, entry, outcome));
  }

  @Override
  public CompletableFuture<ReadResult> abort(long address, long nonce) {
    List<Endpoint> chain = ops.rpc().layout().current().logChain(address);
    return ops.logFill(chain.get(chain.size() - 1), address, true, nonce);
  }

  private static List<ReadResult> withAddresses(List<ReadResult> results, long from) {
    List<ReadResult> out = new ArrayList<>(results.size());
    for (int i = 0; i < results.size(); i++) {
      ReadResult r = results.get(i);
      out.add(r.getAddress() == from + i ? r : r.toBuilder().setAddress(from + i).build());
    }
    return out;
  }
}
