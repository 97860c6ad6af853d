package io.vcorfu.sequencer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.NotServingException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.StreamSlot;
import io.vcorfu.protocol.proto.TailRequest;
import io.vcorfu.protocol.proto.Token;
import io.vcorfu.protocol.proto.TokenRequest;
import io.vcorfu.protocol.proto.TokenResponse;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class SequencerServiceTest {
  static final int THREADS = 8;
  static final int TOKENS_PER_THREAD = 10_000;
  static final List<StreamId> STREAMS =
      List.of(
          StreamId.of("s0"),
          StreamId.of("s1"),
          StreamId.of("s2"),
          StreamId.of("s3"),
          StreamId.of("s4"));

  static SequencerService started(SequencerService.Mode mode) {
    SequencerService service = new SequencerService(new Sequencer(1000), mode);
    service.bootstrap(-1, Map.of()).join();
    return service;
  }

  /** A global address with the stream addresses its token holds. */
  record Issued(long global, StreamId stream, long streamAddress) {}

  @ParameterizedTest
  @EnumSource(SequencerService.Mode.class)
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void concurrentCallersGetDistinctDenseAddressesInGlobalOrderPerStream(SequencerService.Mode mode)
      throws Exception {
    long seed = System.nanoTime();
    System.out.println("concurrency test seed " + seed + " mode " + mode);
    List<Issued> issued = new ArrayList<>();
    List<Long> globals = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try (SequencerService service = started(mode)) {
      List<Future<List<TokenResponse>>> results = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        Random random = new Random(seed + t);
        results.add(
            pool.submit(
                () -> {
                  List<CompletableFuture<TokenResponse>> mine = new ArrayList<>();
                  for (int i = 0; i < TOKENS_PER_THREAD; i++) {
                    TokenRequest.Builder b = TokenRequest.newBuilder();
                    b.addStreams(STREAMS.get(random.nextInt(STREAMS.size())).toMsg());
                    if (random.nextInt(4) == 0) {
                      StreamId second = STREAMS.get(random.nextInt(STREAMS.size()));
                      if (!second.toMsg().equals(b.getStreams(0))) {
                        b.addStreams(second.toMsg());
                      }
                    }
                    mine.add(service.token(b.build()));
                  }
                  List<TokenResponse> out = new ArrayList<>();
                  for (CompletableFuture<TokenResponse> f : mine) {
                    out.add(f.join());
                  }
                  return out;
                }));
      }
      for (Future<List<TokenResponse>> f : results) {
        for (TokenResponse r : f.get()) {
          for (Token token : r.getTokensList()) {
            globals.add(token.getGlobalAddress());
            for (StreamSlot s : token.getSlotsList()) {
              issued.add(
                  new Issued(
                      token.getGlobalAddress(),
                      StreamId.fromMsg(s.getStream()),
                      s.getStreamAddress()));
            }
          }
        }
      }
    } finally {
      pool.shutdownNow();
    }

    int total = THREADS * TOKENS_PER_THREAD;
    BitSet seen = new BitSet(total);
    for (long g : globals) {
      assertThat(g).isBetween(0L, total - 1L);
      assertThat(seen.get((int) g)).as("global address %d issued twice", g).isFalse();
      seen.set((int) g);
    }
    assertThat(seen.cardinality()).isEqualTo(total);

    Map<StreamId, TreeMap<Long, Issued>> byStream = new TreeMap<>();
    for (Issued i : issued) {
      byStream.computeIfAbsent(i.stream(), k -> new TreeMap<>()).put(i.global(), i);
    }
    for (Map.Entry<StreamId, TreeMap<Long, Issued>> e : byStream.entrySet()) {
      long expected = 0;
      for (Issued i : e.getValue().values()) {
        assertThat(i.streamAddress())
            .as("stream %s in global order", e.getKey())
            .isEqualTo(expected++);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(SequencerService.Mode.class)
  void errorsCompleteTheFutureWithTheTypedException(SequencerService.Mode mode) {
    try (SequencerService service = started(mode)) {
      StreamId s = StreamId.of("x");
      TokenRequest dup =
          TokenRequest.newBuilder().addStreams(s.toMsg()).addStreams(s.toMsg()).build();
      assertThatThrownBy(() -> service.token(dup).join())
          .isInstanceOf(CompletionException.class)
          .hasCauseInstanceOf(BadRequestException.class);
      TokenResponse ok =
          service.token(TokenRequest.newBuilder().addStreams(s.toMsg()).build()).join();
      assertThat(ok.getTokens(0).getGlobalAddress()).isZero();
    }
  }

  @ParameterizedTest
  @EnumSource(SequencerService.Mode.class)
  void requestsBeforeBootstrapAreNotServedAndBootstrapIsOrdered(SequencerService.Mode mode) {
    try (SequencerService service = new SequencerService(new Sequencer(10), mode)) {
      TokenRequest req = TokenRequest.newBuilder().addStreams(StreamId.of("x").toMsg()).build();
      assertThatThrownBy(() -> service.token(req).join())
          .hasCauseInstanceOf(NotServingException.class);
      CompletableFuture<Void> boot = service.bootstrap(2, 41, Map.of());
      CompletableFuture<TokenResponse> after = service.token(req);
      boot.join();
      assertThat(after.join().getTokens(0).getGlobalAddress()).isEqualTo(42);
      assertThat(after.join().getEpoch()).isEqualTo(2);
      assertThat(service.tail(TailRequest.getDefaultInstance()).join().getGlobalTail())
          .isEqualTo(42);
    }
  }

  @ParameterizedTest
  @EnumSource(SequencerService.Mode.class)
  void closedServiceRefusesRequests(SequencerService.Mode mode) {
    SequencerService service = started(mode);
    service.close();
    assertThatThrownBy(() -> service.token(TokenRequest.getDefaultInstance()).join())
        .hasCauseInstanceOf(NotServingException.class);
    assertThatThrownBy(() -> service.tail(TailRequest.getDefaultInstance()).join())
        .hasCauseInstanceOf(NotServingException.class);
  }
}
