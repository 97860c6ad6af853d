package io.vcorfu.protocol;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.vcorfu.protocol.proto.StreamIdMsg;
import io.vcorfu.protocol.proto.StreamSlot;
import io.vcorfu.protocol.proto.Token;
import io.vcorfu.protocol.proto.TokenRequest;
import io.vcorfu.protocol.proto.TokenResponse;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The fixed layout of coalesced token requests ({@code TokenRequest.packed}) and of their answer
 * ({@code TokenResponse.packed}): what a client sends when several of its callers wait for tokens
 * at once, with no protobuf message per request on either side. All integers are big-endian.
 *
 * <p>Requests, one after another, each {@code 8 + 16 n} bytes:
 *
 * <pre>
 *   int32 count        tokens asked for, 1 to 65,536
 *   int32 n            streams, 0 to {@link #MAX_STREAMS}
 *   n x (int64 msb, int64 lsb)   the streams, distinct
 * </pre>
 *
 * <p>The answer, {@code 12 + 16 S} bytes where S is the sum over the requests of count x n:
 *
 * <pre>
 *   int64 first        global address of the batch's first token
 *   int32 tokens       tokens issued (the sum of the counts)
 *   then for each request in order, for each of its tokens, for each of its streams in order:
 *     int64 stream address, int64 backpointer
 * </pre>
 *
 * <p>The sequencer issues a packed batch in one turn, request after request, so the batch's tokens
 * have consecutive global addresses: the k-th token of the batch (from 0) is {@code first + k}, and
 * the layout of the answer follows from the requests. Every request is issued exactly as it would
 * have been alone ({@link Ask#toRequest}), and {@link #split} gives each request its answer in that
 * form. Conditional requests are never packed: each is checked and refused on its own.
 */
public final class PackedTokens {
  /** The most streams one packed request may name. */
  public static final int MAX_STREAMS = 4096;

  /** Bytes of a request's fixed part. */
  public static final int REQUEST_HEADER_BYTES = 8;

  /** Bytes of a stream id. */
  public static final int STREAM_BYTES = 16;

  /** Bytes of the answer's fixed part. */
  public static final int ANSWER_HEADER_BYTES = 12;

  /** Bytes of one stream slot of the answer. */
  public static final int SLOT_BYTES = 16;

  /**
   * The largest answer a sequencer gives to one packed batch (8 MiB, half the default frame limit):
   * a batch whose answer would be larger is refused whole before anything is issued, so that a
   * small request cannot make the sequencer allocate, and then fail to send, gigabytes.
   */
  public static final int MAX_ANSWER_BYTES = 8 * 1024 * 1024;

  private PackedTokens() {}

  /**
   * One caller's unconditional request: {@code count} consecutive tokens (1 to 65,536) for {@code
   * streams} (distinct, at most {@link #MAX_STREAMS}; the sequencer refuses a batch that breaks
   * either rule), as a client holds it before it is sent.
   */
  public record Ask(List<StreamId> streams, int count) {
    public Ask {
      if (streams.size() > MAX_STREAMS) {
        throw new IllegalArgumentException(
            "a token request names at most " + MAX_STREAMS + " streams, not " + streams.size());
      }
    }

    /** The same request as a message of its own. */
    public TokenRequest toRequest() {
      TokenRequest.Builder b = TokenRequest.newBuilder().setCount(count);
      for (StreamId s : streams) {
        b.addStreams(s.toMsg());
      }
      return b.build();
    }

    private int tokens() {
      return count == 0 ? 1 : count;
    }
  }

  /**
   * The bytes {@code ask} adds to a packed answer: {@link #SLOT_BYTES} per stream per token (a
   * batch's answer is {@link #ANSWER_HEADER_BYTES} plus the sum over its requests).
   */
  public static long answerBytes(Ask ask) {
    return (long) SLOT_BYTES * ask.tokens() * ask.streams().size();
  }

  /**
   * The request of {@code asks} packed ({@link #pack}), with the names of their streams it knows
   * ({@code TokenRequest.packed_names}, each stream once).
   */
  public static TokenRequest request(List<Ask> asks) {
    TokenRequest.Builder b = TokenRequest.newBuilder().setPacked(pack(asks));
    java.util.Set<StreamId> named = null;
    StreamId last = null;
    for (Ask a : asks) {
      for (StreamId s : a.streams()) {
        // Callers of one batch often name the same stream: the one named last is not looked up.
        if (s.name() != null && !s.equals(last)) {
          last = s;
          if (named == null) {
            named = new java.util.HashSet<>();
          }
          if (named.add(s)) {
            b.addPackedNames(s.toMsg());
          }
        }
      }
    }
    return b.build();
  }

  /** The packed form of {@code asks}, in order. */
  public static ByteString pack(List<Ask> asks) {
    int bytes = 0;
    for (Ask a : asks) {
      bytes += REQUEST_HEADER_BYTES + STREAM_BYTES * a.streams().size();
    }
    byte[] out = new byte[bytes];
    ByteBuffer b = ByteBuffer.wrap(out);
    for (Ask a : asks) {
      List<StreamId> streams = a.streams();
      b.putInt(a.tokens());
      b.putInt(streams.size());
      for (int i = 0; i < streams.size(); i++) {
        StreamId s = streams.get(i);
        b.putLong(s.msb());
        b.putLong(s.lsb());
      }
    }
    return UnsafeByteOperations.unsafeWrap(out);
  }

  /**
   * The answer of each of {@code asks}, in order, from the answer to their packed form: each holds
   * the tokens the sequencer gives the request sent alone ({@link Ask#toRequest}), read in place
   * from the shared answer ({@link Tokens}; no message is built per request).
   *
   * @throws IllegalStateException when the answer does not fit the requests
   */
  public static List<Tokens> split(List<Ask> asks, TokenResponse answer) {
    ByteBuffer b = answer.getPacked().asReadOnlyByteBuffer();
    long expected = ANSWER_HEADER_BYTES;
    long tokens = 0;
    for (Ask a : asks) {
      tokens += a.tokens();
      expected += (long) SLOT_BYTES * a.tokens() * a.streams().size();
    }
    if (b.remaining() != expected) {
      throw new IllegalStateException(
          "the sequencer's packed answer has "
              + b.remaining()
              + " bytes where "
              + asks.size()
              + " token requests take "
              + expected);
    }
    // Absolute gets from here on: the parts share the buffer and read it from any thread.
    int base = b.position();
    long global = b.getLong(base);
    int issued = b.getInt(base + Long.BYTES);
    if (issued != tokens) {
      throw new IllegalStateException(
          "the sequencer's packed answer issues "
              + issued
              + " tokens where "
              + tokens
              + " were asked for");
    }
    List<Tokens> out = new ArrayList<>(asks.size());
    long epoch = answer.getEpoch();
    int offset = base + ANSWER_HEADER_BYTES;
    for (Ask a : asks) {
      int n = a.tokens();
      out.add(Tokens.packed(epoch, a.streams(), global, n, b, offset));
      global += n;
      offset += SLOT_BYTES * n * a.streams().size();
    }
    return out;
  }

  /**
   * The tokens of a packed answer, in issue order, with their stream slots ({@code request} is the
   * packed request it answers, already checked by the sequencer that issued it).
   */
  public static List<Token> tokens(ByteString request, ByteString answer) {
    ByteBuffer q = request.asReadOnlyByteBuffer();
    ByteBuffer a = answer.asReadOnlyByteBuffer();
    long global = a.getLong();
    int issued = a.getInt();
    List<Token> out = new ArrayList<>(issued);
    while (q.hasRemaining()) {
      int count = q.getInt();
      int n = q.getInt();
      StreamIdMsg[] streams = new StreamIdMsg[n];
      for (int i = 0; i < n; i++) {
        streams[i] = StreamIdMsg.newBuilder().setMsb(q.getLong()).setLsb(q.getLong()).build();
      }
      for (int t = 0; t < count; t++) {
        Token.Builder token = Token.newBuilder().setGlobalAddress(global++);
        for (int i = 0; i < n; i++) {
          token.addSlots(
              StreamSlot.newBuilder()
                  .setStream(streams[i])
                  .setStreamAddress(a.getLong())
                  .setBackpointer(a.getLong()));
        }
        out.add(token.build());
      }
    }
    return out;
  }

  /**
   * The highest global address {@code r} issues, -1 for none: over its packed answer, its tokens
   * and a batch's responses.
   */
  public static long lastAddress(TokenResponse r) {
    if (!r.getPacked().isEmpty()) {
      return lastAddress(r.getPacked());
    }
    long last = -1;
    for (int i = 0; i < r.getTokensCount(); i++) {
      last = Math.max(last, r.getTokens(i).getGlobalAddress());
    }
    for (int i = 0; i < r.getBatchCount(); i++) {
      last = Math.max(last, lastAddress(r.getBatch(i)));
    }
    return last;
  }

  /** The highest global address a packed answer issues (-1 when it issues none). */
  public static long lastAddress(ByteString answer) {
    ByteBuffer a = answer.asReadOnlyByteBuffer();
    long first = a.getLong();
    int issued = a.getInt();
    return issued == 0 ? -1 : first + issued - 1;
  }
}
