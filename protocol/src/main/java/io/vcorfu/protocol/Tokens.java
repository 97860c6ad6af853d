package io.vcorfu.protocol;

import io.vcorfu.protocol.proto.StreamSlot;
import io.vcorfu.protocol.proto.Token;
import io.vcorfu.protocol.proto.TokenResponse;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The tokens a sequencer issued to one request, as a client hands them to its caller: for each
 * token its global address and, for each stream the request named (in its order), the token's
 * address in that stream and its backpointer.
 *
 * <p>Two forms, one meaning. A request answered by a message of its own is held as that {@link
 * TokenResponse}. A request answered inside a packed answer ({@link PackedTokens}) is held as its
 * place in the shared answer: the request's streams, its first global address (a request's tokens
 * have consecutive global addresses), and the offset of its first slot; nothing is copied and no
 * protobuf message is built until {@link #token} or {@link #toResponse} asks for one. Either way
 * the accessors give the same values the message would.
 *
 * <p>Immutable; safe to share between threads (the packed form reads its answer with absolute gets
 * only).
 */
public final class Tokens {
  private final long epoch;
  // The message form (null in the packed form).
  private final TokenResponse message;
  // The packed form.
  private final List<StreamId> streams;
  private final long first;
  private final int count;
  private final ByteBuffer slots;
  private final int offset;

  private Tokens(
      long epoch,
      TokenResponse message,
      List<StreamId> streams,
      long first,
      int count,
      ByteBuffer slots,
      int offset) {
    this.epoch = epoch;
    this.message = message;
    this.streams = streams;
    this.first = first;
    this.count = count;
    this.slots = slots;
    this.offset = offset;
  }

  /** The tokens of {@code response}, an answer to one request sent alone. */
  public static Tokens of(TokenResponse response) {
    return new Tokens(response.getEpoch(), response, null, -1, response.getTokensCount(), null, 0);
  }

  /**
   * One request's part of a packed answer: {@code count} tokens from global address {@code first}
   * for {@code streams}, whose slots start at byte {@code offset} of {@code slots} (the answer,
   * read with absolute gets only, so one buffer serves every part).
   */
  static Tokens packed(
      long epoch, List<StreamId> streams, long first, int count, ByteBuffer slots, int offset) {
    return new Tokens(epoch, null, streams, first, count, slots, offset);
  }

  /** The epoch of the sequencer that issued them. */
  public long epoch() {
    return epoch;
  }

  /** How many tokens were issued. */
  public int count() {
    return count;
  }

  /** The global address of token {@code t} (from 0). */
  public long globalAddress(int t) {
    if (message != null) {
      return message.getTokens(t).getGlobalAddress();
    }
    return first + checkToken(t);
  }

  /** How many streams each token has a slot in (the streams the request named). */
  public int streamCount() {
    return message != null
        ? (count == 0 ? 0 : message.getTokens(0).getSlotsCount())
        : streams.size();
  }

  /** Stream {@code s} of the request (from 0), whose slot is {@code s} in every token. */
  public StreamId stream(int s) {
    return message != null
        ? StreamId.fromMsg(message.getTokens(0).getSlots(s).getStream())
        : streams.get(s);
  }

  /** The address of token {@code t} in stream {@code s}. */
  public long streamAddress(int t, int s) {
    if (message != null) {
      return message.getTokens(t).getSlots(s).getStreamAddress();
    }
    return slots.getLong(slot(t, s));
  }

  /** The backpointer of token {@code t} in stream {@code s}. */
  public long backpointer(int t, int s) {
    if (message != null) {
      return message.getTokens(t).getSlots(s).getBackpointer();
    }
    return slots.getLong(slot(t, s) + Long.BYTES);
  }

  /** Token {@code t} as its protobuf message. */
  public Token token(int t) {
    if (message != null) {
      return message.getTokens(t);
    }
    Token.Builder token = Token.newBuilder().setGlobalAddress(globalAddress(t));
    for (int s = 0; s < streams.size(); s++) {
      token.addSlots(
          StreamSlot.newBuilder()
              .setStream(streams.get(s).toMsg())
              .setStreamAddress(streamAddress(t, s))
              .setBackpointer(backpointer(t, s))
              .build());
    }
    return token.build();
  }

  /** All of them as the message a sequencer answers the request sent alone with. */
  public TokenResponse toResponse() {
    if (message != null) {
      return message;
    }
    TokenResponse.Builder b = TokenResponse.newBuilder().setEpoch(epoch);
    for (int t = 0; t < count; t++) {
      b.addTokens(token(t));
    }
    return b.build();
  }

  private int checkToken(int t) {
    if (t < 0 || t >= count) {
      throw new IndexOutOfBoundsException("token " + t + " of " + count);
    }
    return t;
  }

  private int slot(int t, int s) {
    checkToken(t);
    if (s < 0 || s >= streams.size()) {
      throw new IndexOutOfBoundsException("stream " + s + " of " + streams.size());
    }
    return offset + (t * streams.size() + s) * PackedTokens.SLOT_BYTES;
  }

  @Override
  public String toString() {
    return "Tokens{epoch="
        + epoch
        + ", count="
        + count
        + (count == 0 ? "" : ", first=" + globalAddress(0))
        + "}";
  }
}
