package io.vcorfu.sequencer;

import com.google.protobuf.UnsafeByteOperations;
import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.NotServingException;
import io.vcorfu.protocol.PackedTokens;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TokenRefusedException;
import io.vcorfu.protocol.proto.StreamIdMsg;
import io.vcorfu.protocol.proto.StreamSlot;
import io.vcorfu.protocol.proto.TailRequest;
import io.vcorfu.protocol.proto.TailResponse;
import io.vcorfu.protocol.proto.Token;
import io.vcorfu.protocol.proto.TokenRequest;
import io.vcorfu.protocol.proto.TokenResponse;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The sequencer's state machine: issues global and stream addresses, resolves transactions by
 * conditional issuance, and answers tail queries.
 *
 * <p>Thread-safety: none. All state must be confined to one thread or guarded by one lock; {@link
 * SequencerService} does one or the other (see {@link SequencerService.Mode}). Every method is
 * linearizable only under that discipline.
 *
 * <p>A sequencer starts unbootstrapped and refuses everything with {@link NotServingException}
 * until {@link #bootstrap} is called: with the tails read from the replicas after a restart or
 * failover, or with {@code bootstrap(-1, Map.of())} for a brand-new, empty log. Transactions whose
 * snapshot predates the bootstrap point abort conservatively, because the writes between their
 * snapshot and the bootstrap are unknown to this sequencer.
 *
 * <p>Restarts: a sequencer that starts after another (or itself) may have issued tokens is
 * bootstrapped at a new epoch, after every replica sealed the older ones (see the server's
 * sequencer bootstrap), so no token issued before the restart is written after it. Every token
 * response carries the epoch. A transaction whose snapshot was taken at an older epoch ({@code
 * TxResolution.snapshot_epoch}) may cover tokens that were fenced, and addresses at or below its
 * snapshot may be issued again in this epoch, so it is refused with {@link
 * TokenRefusedException.Cause#SEQUENCER_RESTARTED} whenever it read anything.
 *
 * <p>Every slot of a token carries a backpointer: the global address the sequencer issued last for
 * that stream (-1 for the stream's first token), so that a stream can be read from the log alone
 * while no replica of its stream chain serves (degraded reads, see the client's {@code
 * DegradedReader}). After a bootstrap the last global address is rebuilt from the replicas (the
 * stream's last DATA entry); the sequencer also reports it with the tails (read leases use it).
 *
 * <p>A conditional request (one with {@code tx}) is decided by {@link ConditionalIssuance}, which
 * also records the writes of every issued request.
 */
public final class Sequencer {
  /** Default number of (stream, key) last-write addresses remembered. */
  public static final int DEFAULT_KEY_CACHE_CAPACITY = 1_000_000;

  /** Most tokens one request may ask for. */
  public static final int MAX_TOKENS_PER_REQUEST = 65_536;

  // Guarded by SequencerService's one lock (LOCKED) or confined to its drainer thread (BATCHED).
  private final Map<StreamId, StreamIssuance> streams = new HashMap<>();
  private final ConditionalIssuance conditional;
  private long globalTail = -1;
  // The stream state state(msb, lsb) found last, and its id; null when none (or after a bootstrap).
  private StreamIssuance lastLooked;
  private long lastMsb;
  private long lastLsb;
  private long bootstrapPoint = -1;
  private long epoch;
  private boolean bootstrapped;

  /** An unbootstrapped sequencer remembering {@link #DEFAULT_KEY_CACHE_CAPACITY} keys. */
  public Sequencer() {
    this(DEFAULT_KEY_CACHE_CAPACITY);
  }

  /**
   * An unbootstrapped sequencer remembering the last write of up to {@code keyCacheCapacity} keys.
   */
  public Sequencer(int keyCacheCapacity) {
    this.conditional = new ConditionalIssuance(keyCacheCapacity, streams, this::state);
  }

  /** Same as {@link #bootstrap(long, long, Map)} keeping the current epoch. */
  public void bootstrap(long globalTail, Map<StreamId, StreamTail> streamTails) {
    bootstrap(epoch, globalTail, streamTails);
  }

  /**
   * Replaces all state with what the replicas report: the global tail (last written global address,
   * -1 for an empty log) and each stream's tail. The bootstrap point becomes the highest global
   * address known; transactions with an older snapshot are refused as too old. Issued responses are
   * stamped with {@code epoch}.
   */
  public void bootstrap(long epoch, long globalTail, Map<StreamId, StreamTail> streamTails) {
    if (globalTail < -1) {
      throw new IllegalArgumentException("global tail must be >= -1, got " + globalTail);
    }
    streams.clear();
    lastLooked = null;
    conditional.clear();
    long tail = globalTail;
    for (Map.Entry<StreamId, StreamTail> e : streamTails.entrySet()) {
      StreamIssuance s = state(e.getKey());
      s.tail = e.getValue().tail();
      s.lastGlobal = e.getValue().lastGlobal();
      tail = Math.max(tail, s.lastGlobal);
    }
    this.globalTail = tail;
    this.bootstrapPoint = tail;
    this.epoch = epoch;
    this.bootstrapped = true;
  }

  /**
   * Moves a bootstrapped sequencer to a later epoch of its cluster's layout, keeping every tail: it
   * stays the sequencer across a layout change, so what it issued is still what it knows. Tokens it
   * issued in older epochs are fenced by the sealed replicas and their addresses become holes;
   * because the tails still count them, none is issued again. A transaction whose snapshot epoch is
   * older is refused ({@code SEQUENCER_RESTARTED}), as after a bootstrap.
   *
   * @throws IllegalArgumentException if {@code newEpoch} is not above the current epoch
   */
  public void advanceEpoch(long newEpoch) {
    checkServing();
    if (newEpoch <= epoch) {
      throw new IllegalArgumentException(
          "the sequencer is at epoch " + epoch + "; it cannot move to epoch " + newEpoch);
    }
    epoch = newEpoch;
  }

  /** Every stream's tail as this sequencer knows it; empty before it is bootstrapped. */
  public Map<StreamId, StreamTail> streamTails() {
    Map<StreamId, StreamTail> out = new HashMap<>();
    if (bootstrapped) {
      streams.forEach((s, i) -> out.put(s, new StreamTail(i.tail, i.lastGlobal)));
    }
    return out;
  }

  /** True once {@link #bootstrap} has run. */
  public boolean isBootstrapped() {
    return bootstrapped;
  }

  /** Last issued global address, -1 when none. */
  public long globalTail() {
    return globalTail;
  }

  /** The epoch stamped on issued tokens; transactions whose snapshot is older are refused. */
  public long epoch() {
    return epoch;
  }

  /** The global tail at the last bootstrap; older snapshots are refused as too old. */
  public long bootstrapPoint() {
    return bootstrapPoint;
  }

  /**
   * Issues {@code request.count} (0 means 1) consecutive tokens for the request's streams, or, for
   * a conditional request, refuses with {@link TokenRefusedException} and changes nothing.
   *
   * @throws BadRequestException for duplicate streams or a count above {@link
   *     #MAX_TOKENS_PER_REQUEST}
   */
  public TokenResponse issue(TokenRequest request) {
    checkServing();
    if (request.getBatchCount() > 0 || !request.getPacked().isEmpty()) {
      throw new BadRequestException(
          "A batch of token requests is issued request by request (see issueBatch, issuePacked).");
    }
    List<StreamIdMsg> msgs = request.getStreamsList();
    int n = msgs.size();
    StreamId[] ids = streamsOf(request);
    int count = request.getCount() == 0 ? 1 : request.getCount();
    if (request.hasTx()) {
      conditional.check(request.getTx(), epoch, bootstrapPoint);
    }
    StreamIssuance[] states = new StreamIssuance[n];
    for (int i = 0; i < n; i++) {
      states[i] = state(ids[i]);
    }
    TokenResponse.Builder out = TokenResponse.newBuilder().setEpoch(epoch);
    for (int t = 0; t < count; t++) {
      long g = ++globalTail;
      Token.Builder token = Token.newBuilder().setGlobalAddress(g);
      for (int i = 0; i < n; i++) {
        StreamIssuance s = states[i];
        token.addSlots(
            StreamSlot.newBuilder()
                .setStream(msgs.get(i))
                .setStreamAddress(++s.tail)
                .setBackpointer(s.lastGlobal));
        s.lastGlobal = g;
      }
      out.addTokens(token);
    }
    conditional.record(request, states, globalTail);
    return out.build();
  }

  /** The global tail and, per requested stream, its last stream address and last global address. */
  /** The last stream address issued in {@code stream} (-1 when none). */
  public long streamTail(StreamId stream) {
    checkServing();
    StreamIssuance s = streams.get(stream);
    return s == null ? -1 : s.tail;
  }

  public TailResponse tails(TailRequest request) {
    checkServing();
    TailResponse.Builder out = TailResponse.newBuilder().setGlobalTail(globalTail);
    for (StreamIdMsg msg : request.getStreamsList()) {
      StreamIssuance s = streams.get(StreamId.fromMsg(msg));
      out.addStreamTails(s == null ? -1 : s.tail);
      out.addStreamLastGlobal(s == null ? -1 : s.lastGlobal);
    }
    return out.build();
  }

  private void checkServing() {
    if (!bootstrapped) {
      throw new NotServingException("sequencer");
    }
  }

  /**
   * Issues every request of {@code batch} (a request with {@code batch} set) in order, as if each
   * were issued alone, and calls {@code each} with every response in issue order; returns the
   * responses as the batch's. Every request is checked before any is issued: a batch with a bad
   * request, or with a conditional or nested one, issues nothing.
   *
   * @throws BadRequestException for such a batch
   */
  public TokenResponse issueBatch(
      TokenRequest batch, java.util.function.Consumer<TokenResponse> each) {
    checkServing();
    if (batch.getStreamsCount() > 0 || batch.hasTx() || batch.getCount() != 0) {
      throw new BadRequestException(
          "A batch of token requests carries its requests in `batch` and nothing else.");
    }
    for (TokenRequest r : batch.getBatchList()) {
      if (r.hasTx() || r.getBatchCount() > 0 || !r.getPacked().isEmpty()) {
        throw new BadRequestException(
            "A batch of token requests may not hold a conditional request or another batch.");
      }
      streamsOf(r);
    }
    TokenResponse.Builder out = TokenResponse.newBuilder().setEpoch(epoch);
    for (TokenRequest r : batch.getBatchList()) {
      TokenResponse issued = issue(r);
      each.accept(issued);
      out.addBatch(issued);
    }
    return out.build();
  }

  /**
   * Issues a packed batch of unconditional requests ({@code request.packed}, the layout of {@link
   * PackedTokens}) request by request, in order, as {@link #issue} would issue each alone, and
   * answers in the packed layout. The whole batch is checked before anything is issued: a batch
   * with a malformed, oversized or duplicate-stream request, or whose answer would exceed {@link
   * PackedTokens#MAX_ANSWER_BYTES}, issues nothing. No object is made per request or token unless a
   * stream is new or differs from the previous request's only stream.
   *
   * @throws BadRequestException when the batch is malformed or carries anything besides {@code
   *     packed}
   */
  public TokenResponse issuePacked(TokenRequest request) {
    checkServing();
    if (request.getStreamsCount() > 0
        || request.hasTx()
        || request.getCount() != 0
        || request.getBatchCount() > 0) {
      throw new BadRequestException(
          "A packed batch of token requests carries its requests in `packed` and nothing else.");
    }
    ByteBuffer in = request.getPacked().asReadOnlyByteBuffer();
    long slots = 0;
    long tokens = 0;
    while (in.hasRemaining()) {
      if (in.remaining() < PackedTokens.REQUEST_HEADER_BYTES) {
        throw malformed("a request is cut short");
      }
      int count = in.getInt();
      int n = in.getInt();
      if (count < 1 || count > MAX_TOKENS_PER_REQUEST) {
        throw new BadRequestException(
            "A token request may ask for 1 to "
                + MAX_TOKENS_PER_REQUEST
                + " tokens, not "
                + Integer.toUnsignedString(count)
                + ".");
      }
      if (n < 0 || n > PackedTokens.MAX_STREAMS || in.remaining() < n * PackedTokens.STREAM_BYTES) {
        throw malformed("a request's stream count does not fit the batch");
      }
      int at = in.position();
      if (n > 1) {
        StreamId[] ids = new StreamId[n];
        for (int i = 0; i < n; i++) {
          ids[i] = new StreamId(in.getLong(at + 16 * i), in.getLong(at + 16 * i + 8));
        }
        checkDistinct(ids);
      }
      in.position(at + n * PackedTokens.STREAM_BYTES);
      tokens += count;
      slots += (long) count * n;
      if (PackedTokens.ANSWER_HEADER_BYTES + PackedTokens.SLOT_BYTES * slots
          > PackedTokens.MAX_ANSWER_BYTES) {
        throw malformed(
            "its answer would be larger than " + PackedTokens.MAX_ANSWER_BYTES + " bytes");
      }
      if (tokens > Integer.MAX_VALUE) {
        throw malformed("it asks for more than " + Integer.MAX_VALUE + " tokens");
      }
    }
    long bytes = PackedTokens.ANSWER_HEADER_BYTES + PackedTokens.SLOT_BYTES * slots;
    byte[] answer = new byte[(int) bytes];
    ByteBuffer out = ByteBuffer.wrap(answer);
    out.putLong(globalTail + 1).putInt((int) tokens);
    in.rewind();
    while (in.hasRemaining()) {
      int count = in.getInt();
      int n = in.getInt();
      int at = in.position();
      in.position(at + n * PackedTokens.STREAM_BYTES);
      for (int t = 0; t < count; t++) {
        long g = ++globalTail;
        for (int i = 0; i < n; i++) {
          StreamIssuance s = state(in.getLong(at + 16 * i), in.getLong(at + 16 * i + 8));
          out.putLong(++s.tail).putLong(s.lastGlobal);
          s.lastGlobal = g;
          if (t == count - 1) {
            s.lastAnyWrite = globalTail;
            s.lastWholeWrite = globalTail;
          }
        }
      }
    }
    return TokenResponse.newBuilder()
        .setEpoch(epoch)
        .setPacked(UnsafeByteOperations.unsafeWrap(answer))
        .build();
  }

  private static BadRequestException malformed(String why) {
    return new BadRequestException(
        "The packed token batch is malformed: " + why + " (see PackedTokens for its layout).");
  }

  /**
   * The streams of {@code request}, checked: distinct, and a count no greater than {@link
   * #MAX_TOKENS_PER_REQUEST}.
   *
   * @throws BadRequestException otherwise
   */
  private static StreamId[] streamsOf(TokenRequest request) {
    List<StreamIdMsg> msgs = request.getStreamsList();
    StreamId[] ids = new StreamId[msgs.size()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = StreamId.fromMsg(msgs.get(i));
    }
    checkDistinct(ids);
    int count = request.getCount() == 0 ? 1 : request.getCount();
    if (count < 0 || count > MAX_TOKENS_PER_REQUEST) {
      throw new BadRequestException(
          "A token request may ask for at most "
              + MAX_TOKENS_PER_REQUEST
              + " tokens, not "
              + Integer.toUnsignedString(request.getCount())
              + ".");
    }
    return ids;
  }

  private static void checkDistinct(StreamId[] ids) {
    if (ids.length < 2) {
      return;
    }
    if (ids.length <= 8) {
      for (int i = 0; i < ids.length; i++) {
        for (int j = i + 1; j < ids.length; j++) {
          if (ids[i].equals(ids[j])) {
            throw duplicate(ids[i]);
          }
        }
      }
      return;
    }
    Set<StreamId> seen = new HashSet<>();
    for (StreamId id : ids) {
      if (!seen.add(id)) {
        throw duplicate(id);
      }
    }
  }

  private static BadRequestException duplicate(StreamId id) {
    return new BadRequestException(
        "The token request lists stream " + id + " more than once; list each stream once.");
  }

  private StreamIssuance state(StreamId stream) {
    return streams.computeIfAbsent(stream, k -> new StreamIssuance());
  }

  /**
   * The state of stream (msb, lsb), remembering the last one looked up this way so that a run of
   * requests for one stream makes no key object per request. The remembered state stays valid until
   * {@link #bootstrap} replaces every state (it forgets it).
   */
  private StreamIssuance state(long msb, long lsb) {
    if (lastLooked != null && lastMsb == msb && lastLsb == lsb) {
      return lastLooked;
    }
    StreamIssuance s = state(new StreamId(msb, lsb));
    lastMsb = msb;
    lastLsb = lsb;
    lastLooked = s;
    return s;
  }
}
