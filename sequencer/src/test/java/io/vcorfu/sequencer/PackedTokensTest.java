package io.vcorfu.sequencer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.PackedTokens;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.Tokens;
import io.vcorfu.protocol.proto.Token;
import io.vcorfu.protocol.proto.TokenRequest;
import io.vcorfu.protocol.proto.TokenResponse;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A packed batch of token requests is issued exactly as its requests would be one by one: the same
 * global addresses, stream addresses and backpointers, each request answered in its own response; a
 * malformed batch issues nothing.
 */
class PackedTokensTest {
  private static final Logger LOG = LoggerFactory.getLogger(PackedTokensTest.class);

  private static TokenRequest request(int count, String... streams) {
    TokenRequest.Builder b = TokenRequest.newBuilder().setCount(count);
    for (String s : streams) {
      b.addStreams(StreamId.of(s).toMsg());
    }
    return b.build();
  }

  private static List<PackedTokens.Ask> asks(List<TokenRequest> requests) {
    return requests.stream()
        .map(
            r ->
                new PackedTokens.Ask(
                    r.getStreamsList().stream().map(StreamId::fromMsg).toList(), r.getCount()))
        .toList();
  }

  private static Sequencer fresh() {
    Sequencer s = new Sequencer();
    s.bootstrap(3, 41, Map.of(StreamId.of("s0"), new StreamTail(9, 40)));
    return s;
  }

  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
  void aPackedBatchIssuesWhatItsRequestsWouldAloneInOrder(long round) {
    long seed = new Random().nextLong() ^ round;
    LOG.info("seed {}", seed);
    Random random = new Random(seed);
    Sequencer alone = fresh();
    Sequencer packed = fresh();
    for (int batch = 0; batch < 20; batch++) {
      List<TokenRequest> requests = new ArrayList<>();
      int n = 2 + random.nextInt(40);
      for (int i = 0; i < n; i++) {
        List<String> pool = new ArrayList<>(List.of("s0", "s1", "s2", "s3", "s4", "s5"));
        Collections.shuffle(pool, random);
        int streams = random.nextInt(4);
        requests.add(
            request(random.nextInt(5), pool.subList(0, streams).toArray(new String[0]))); // 0 = 1
      }
      List<TokenResponse> expected = new ArrayList<>();
      for (TokenRequest r : requests) {
        expected.add(alone.issue(r));
      }
      TokenResponse answer =
          packed.issuePacked(
              TokenRequest.newBuilder().setPacked(PackedTokens.pack(asks(requests))).build());
      List<Tokens> parts = PackedTokens.split(asks(requests), answer);
      assertThat(parts.stream().map(Tokens::toResponse).toList())
          .as("seed %d batch %d", seed, batch)
          .isEqualTo(expected);
      for (int i = 0; i < parts.size(); i++) {
        // Read in place, each part gives what the message of the request sent alone holds.
        Tokens part = parts.get(i);
        Tokens message = Tokens.of(expected.get(i));
        assertThat(part.epoch()).isEqualTo(message.epoch());
        assertThat(part.count()).isEqualTo(message.count());
        for (int t = 0; t < part.count(); t++) {
          assertThat(part.globalAddress(t)).isEqualTo(message.globalAddress(t));
          assertThat(part.streamCount()).isEqualTo(message.streamCount());
          for (int k = 0; k < part.streamCount(); k++) {
            assertThat(part.stream(k)).isEqualTo(message.stream(k));
            assertThat(part.streamAddress(t, k))
                .as("seed %d batch %d request %d token %d stream %d", seed, batch, i, t, k)
                .isEqualTo(message.streamAddress(t, k));
            assertThat(part.backpointer(t, k)).isEqualTo(message.backpointer(t, k));
          }
        }
        assertThatThrownBy(() -> part.globalAddress(part.count()))
            .isInstanceOf(IndexOutOfBoundsException.class);
      }
      // The packed bytes carry ids only: the tokens read from them name no stream by its name.
      List<Token> all = new ArrayList<>();
      expected.forEach(r -> r.getTokensList().forEach(t -> all.add(withoutNames(t))));
      assertThat(
              PackedTokens.tokens(
                  TokenRequest.newBuilder()
                      .setPacked(PackedTokens.pack(asks(requests)))
                      .build()
                      .getPacked(),
                  answer.getPacked()))
          .as("the tokens of the answer, seed %d", seed)
          .isEqualTo(all);
      assertThat(PackedTokens.lastAddress(answer.getPacked())).isEqualTo(alone.globalTail());
    }
    assertThat(packed.streamTails()).isEqualTo(alone.streamTails());
  }

  @Test
  void aPackedBatchCountsAsAWriteForConditionalIssuance() {
    Sequencer s = fresh();
    long snapshot = s.globalTail();
    s.issuePacked(
        TokenRequest.newBuilder()
            .setPacked(PackedTokens.pack(asks(List.of(request(1, "s1"), request(2, "s2")))))
            .build());
    TokenRequest conditional =
        TokenRequest.newBuilder()
            .addStreams(StreamId.of("s3").toMsg())
            .setTx(
                io.vcorfu.protocol.proto.TxResolution.newBuilder()
                    .setSnapshot(snapshot)
                    .setSnapshotEpoch(3)
                    .addReadSet(
                        io.vcorfu.protocol.proto.ConflictKey.newBuilder()
                            .setStream(StreamId.of("s2").toMsg())))
            .build();
    assertThatThrownBy(() -> s.issue(conditional))
        .as("a transaction that read s2 before the packed batch wrote it")
        .isInstanceOf(io.vcorfu.protocol.TokenRefusedException.class);
  }

  private static String[] manyStreams(int n) {
    String[] names = new String[n];
    for (int i = 0; i < n; i++) {
      names[i] = "s" + i;
    }
    return names;
  }

  private static ByteString bytes(int... ints) {
    ByteBuffer b = ByteBuffer.allocate(4 * ints.length);
    for (int i : ints) {
      b.putInt(i);
    }
    return ByteString.copyFrom(b.array());
  }

  @Test
  void aMalformedBatchIssuesNothing() {
    Sequencer s = fresh();
    long tail = s.globalTail();
    ByteString good = PackedTokens.pack(asks(List.of(request(1, "a"))));
    List<ByteString> bad =
        List.of(
            good.substring(0, good.size() - 1), // cut inside a stream id
            good.concat(bytes(1)), // a request cut inside its header
            good.concat(bytes(0, 0)), // zero tokens
            good.concat(bytes(Sequencer.MAX_TOKENS_PER_REQUEST + 1, 0)), // too many tokens
            good.concat(bytes(1, -1)), // a negative stream count
            good.concat(bytes(1, PackedTokens.MAX_STREAMS + 1)), // too many streams
            good.concat(bytes(1, 1000)), // more streams than bytes
            // 64 KiB that would have made a 2 GiB answer: refused for the answer's size
            good.concat(
                PackedTokens.pack(
                    asks(List.of(request(32_000, manyStreams(PackedTokens.MAX_STREAMS)))))),
            good.concat(
                PackedTokens.pack(asks(List.of(request(1, "b", "c", "b")))))); // a duplicate
    for (ByteString b : bad) {
      assertThatThrownBy(() -> s.issuePacked(TokenRequest.newBuilder().setPacked(b).build()))
          .isInstanceOf(BadRequestException.class)
          .hasMessageContaining("token");
      assertThat(s.globalTail()).as("nothing issued").isEqualTo(tail);
    }
    assertThatThrownBy(
            () ->
                s.issuePacked(
                    TokenRequest.newBuilder()
                        .setPacked(good)
                        .addStreams(StreamId.of("x").toMsg())
                        .build()))
        .as("a packed batch carries nothing else")
        .isInstanceOf(BadRequestException.class);
    assertThatThrownBy(() -> s.issue(TokenRequest.newBuilder().setPacked(good).build()))
        .as("a packed batch is not a request")
        .isInstanceOf(BadRequestException.class);
    assertThat(s.globalTail()).isEqualTo(tail);
  }

  @Test
  void anAnswerThatDoesNotFitItsRequestsIsRefusedByTheClient() {
    List<TokenRequest> requests = List.of(request(2, "a"), request(1, "b", "c"));
    TokenResponse answer =
        fresh()
            .issuePacked(
                TokenRequest.newBuilder().setPacked(PackedTokens.pack(asks(requests))).build());
    assertThatThrownBy(() -> PackedTokens.split(asks(requests.subList(0, 1)), answer))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("packed answer");
  }

  private static Token withoutNames(Token t) {
    Token.Builder b = t.toBuilder();
    for (int i = 0; i < b.getSlotsCount(); i++) {
      b.setSlots(
          i,
          b.getSlots(i).toBuilder().setStream(b.getSlots(i).getStream().toBuilder().clearName()));
    }
    return b.build();
  }
}
