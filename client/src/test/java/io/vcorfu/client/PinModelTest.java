package io.vcorfu.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.vcorfu.logunit.ReplicaStore;
import io.vcorfu.logunit.StorageOptions;
import io.vcorfu.logunit.StreamReplica;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.StreamPinRequest;
import io.vcorfu.protocol.proto.StreamPinResponse;
import io.vcorfu.protocol.proto.StreamSlot;
import io.vcorfu.protocol.proto.StreamTailRequest;
import io.vcorfu.protocol.proto.StreamTailResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The pin rule, explored exhaustively on small chains: {@link StreamPinner} pinning a stream on
 * real stream replicas (in memory) while a trimmer trims it twice the way a client does (the
 * chain's last replica first, then the others at once), every order in which the replicas can take
 * the two parties' requests, from a chain whose marks agree and from one where a trim stopped
 * half-way. After every order: the pin holds at one position P on every replica, every replica's
 * trim mark is P (so a read sees on any replica what it will see later), every position from P on
 * reads back committed everywhere, and no later trim passes P.
 */
class PinModelTest {
  private static final StreamId S = StreamId.of("modelled");
  private static final StreamId NAME = StreamId.of("a hold");
  private static final int ENTRIES = 6;

  /** The replicas of one run, and the requests sent to them and not yet taken. */
  private static final class World implements StreamPinner.Calls {
    final List<Endpoint> chain = new ArrayList<>();
    final Map<Endpoint, ReplicaStore> stores = new LinkedHashMap<>();
    final List<Runnable> pending = new ArrayList<>();

    World(int replicas, long halfWayMark) throws IOException {
      for (int i = 0; i < replicas; i++) {
        Endpoint e = Endpoint.parse("r" + i + ":9000");
        chain.add(e);
        ReplicaStore store = ReplicaStore.open(StorageOptions.memory());
        stores.put(e, store);
        for (long a = 0; a < ENTRIES; a++) {
          LogEntryMsg entry =
              LogEntryMsg.newBuilder()
                  .setGlobalAddress(a)
                  .setKind(EntryKind.DATA)
                  .setPayload(ByteString.copyFromUtf8("v" + a))
                  .setEpoch(1)
                  .setNonce(a + 1)
                  .addSlots(StreamSlot.newBuilder().setStream(S.toMsg()).setStreamAddress(a))
                  .build();
          store
              .streamReplica()
              .write(entry, StreamReplica.Slot.of(entry.getSlotsList()), true)
              .join();
        }
      }
      if (halfWayMark > 0) {
        replica(chain.get(replicas - 1)).trim(S, halfWayMark).join();
      }
    }

    StreamReplica replica(Endpoint e) {
      return stores.get(e).streamReplica();
    }

    /** {@code call}, run when the explorer takes it. */
    <T> CompletableFuture<T> later(Supplier<CompletableFuture<T>> call) {
      CompletableFuture<T> f = new CompletableFuture<>();
      pending.add(
          () ->
              call.get()
                  .whenComplete(
                      (v, e) -> {
                        if (e != null) {
                          f.completeExceptionally(
                              e instanceof CompletionException && e.getCause() != null
                                  ? e.getCause()
                                  : e);
                        } else {
                          f.complete(v);
                        }
                      }));
      return f;
    }

    @Override
    public CompletableFuture<StreamTailResponse> tail(Endpoint replica, StreamId stream) {
      return later(
          () ->
              replica(replica)
                  .tail(StreamTailRequest.newBuilder().addStreams(stream.toMsg()).build()));
    }

    @Override
    public CompletableFuture<StreamPinResponse> pin(Endpoint replica, StreamPinRequest request) {
      return later(() -> replica(replica).pin(request));
    }

    /** A whole trim, as a client sends it: the chain's last replica, then the others at once. */
    CompletableFuture<Long> trim(StreamId stream, long before) {
      Endpoint last = chain.get(chain.size() - 1);
      return later(() -> replica(last).trim(stream, before))
          .thenCompose(
              lastMark -> {
                List<CompletableFuture<Long>> others = new ArrayList<>();
                for (Endpoint e : chain.subList(0, chain.size() - 1)) {
                  others.add(later(() -> replica(e).trim(stream, before)));
                }
                return CompletableFuture.allOf(others.toArray(CompletableFuture[]::new))
                    .thenApply(v -> lastMark);
              });
    }

    void close() throws IOException {
      for (ReplicaStore s : stores.values()) {
        s.close();
      }
    }
  }

  /**
   * Runs one order: {@code choices} picks, at each step, which pending request is taken next (0
   * past its end); fills {@code options} with how many there were at each step.
   */
  private static void run(
      int replicas, long halfWayMark, List<Integer> choices, List<Integer> options)
      throws IOException {
    run(replicas, halfWayMark, choices, options, false);
  }

  /** As above; with {@code modulo}, a choice is taken modulo the requests pending then. */
  private static void run(
      int replicas, long halfWayMark, List<Integer> choices, List<Integer> options, boolean modulo)
      throws IOException {
    World w = new World(replicas, halfWayMark);
    try {
      StreamPinner pinner = new StreamPinner(w, s -> w.chain, w::trim);
      CompletableFuture<Long> pinned = pinner.pin(S, NAME);
      CompletableFuture<Long> trims = w.trim(S, 3).thenCompose(m -> w.trim(S, 5));
      for (int step = 0; !w.pending.isEmpty(); step++) {
        assertThat(step).as("steps of one order").isLessThan(200);
        int choice = step < choices.size() ? choices.get(step) : 0;
        if (modulo) {
          choice %= w.pending.size();
        }
        options.add(w.pending.size());
        w.pending.remove(choice).run();
      }
      assertThat(trims).as("the trimmer's trims end").isDone();
      trims.join();
      assertThat(pinned).as("the pin ends").isDone();
      long p = pinned.join();
      assertThat(p)
          .as("the pin is at or above every mark there was")
          .isGreaterThanOrEqualTo(halfWayMark);
      for (Endpoint e : w.chain) {
        StreamReplica r = w.replica(e);
        var tail =
            r.tail(StreamTailRequest.newBuilder().addStreams(S.toMsg()).build()).join().getTails(0);
        assertThat(tail.getTrimMark()).as("%s's mark, pin at %d, %s", e, p, choices).isEqualTo(p);
        assertThat(tail.getPinsList()).as("%s's pins", e).hasSize(1);
        assertThat(tail.getPins(0).getAt()).isEqualTo(p);
        if (p < ENTRIES) {
          List<ReadResult> kept = r.read(S, p, ENTRIES - 1).join();
          assertThat(kept)
              .as("%s holds every position from the pin on", e)
              .allMatch(x -> x.getStatus() == ReadResult.Status.COMMITTED);
        }
        assertThat(r.trim(S, ENTRIES).join()).as("no later trim passes the pin").isEqualTo(p);
      }
    } finally {
      w.close();
    }
  }

  @ParameterizedTest(name = "3 replicas, a trim stopped half-way at {0}")
  @CsvSource({"0", "2"})
  void randomOrdersOnThreeReplicasHoldThePinEverywhere(long halfWayMark) throws IOException {
    // Three replicas have too many orders to take them all here (millions); random ones instead.
    long seed = Long.getLong("vcorfu.seed", System.nanoTime());
    System.out.printf("PinModelTest seed %d (-Dvcorfu.seed=%d)%n", seed, seed);
    java.util.Random random = new java.util.Random(seed);
    for (int order = 0; order < 3_000; order++) {
      List<Integer> choices = new ArrayList<>();
      for (int i = 0; i < 60; i++) {
        choices.add(random.nextInt(1 << 20));
      }
      run(3, halfWayMark, choices, new ArrayList<>(), true);
    }
  }

  @ParameterizedTest(name = "{0} replicas, a trim stopped half-way at {1}")
  @CsvSource({"2, 0", "2, 2"})
  void everyOrderOfAPinAndTwoTrimsHoldsThePinEverywhere(int replicas, long halfWayMark)
      throws IOException {
    List<Integer> choices = new ArrayList<>();
    long orders = 0;
    while (true) {
      List<Integer> options = new ArrayList<>();
      run(replicas, halfWayMark, choices, options);
      orders++;
      assertThat(orders).as("orders explored").isLessThan(2_000_000);
      // The next order: the last step with an untried request, taking the next one.
      int step = options.size() - 1;
      while (step >= 0
          && (step < choices.size() ? choices.get(step) : 0) + 1 >= options.get(step)) {
        step--;
      }
      if (step < 0) {
        break;
      }
      int next = (step < choices.size() ? choices.get(step) : 0) + 1;
      List<Integer> prefix = new ArrayList<>();
      for (int i = 0; i < step; i++) {
        prefix.add(i < choices.size() ? choices.get(i) : 0);
      }
      prefix.add(next);
      choices = prefix;
    }
    System.out.printf("%d replicas, half-way mark %d: %d orders%n", replicas, halfWayMark, orders);
    assertThat(orders).isGreaterThan(10);
  }
}
