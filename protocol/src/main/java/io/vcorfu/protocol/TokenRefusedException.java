package io.vcorfu.protocol;

/**
 * The sequencer refused a conditional token: something in the read set changed after the snapshot,
 * the sequencer cannot judge the snapshot (too old), or the snapshot was taken before the sequencer
 * restarted (its epoch is older than the sequencer's).
 */
public final class TokenRefusedException extends VCorfuException {
  /** Why the token was refused. */
  public enum Cause {
    /** A read-set entry was written after the snapshot. */
    CONFLICT,
    /**
     * The sequencer could not judge the snapshot (failover, evicted key) and refused
     * conservatively.
     */
    SNAPSHOT_TOO_OLD,
    /**
     * The snapshot was taken in an earlier epoch: the sequencer restarted since, and the tokens
     * issued before the restart, which the snapshot may cover, were fenced.
     */
    SEQUENCER_RESTARTED
  }

  private final StreamId stream;
  private final byte[] conflictKey;
  private final long conflictAddress;
  private final Cause cause;

  /** The stream whose read-set entry conflicted. */
  public StreamId stream() {
    return stream;
  }

  /** The conflicting key inside the stream; empty when the whole object conflicted. */
  public byte[] conflictKey() {
    return conflictKey.clone();
  }

  /** Global address of the conflicting write, or -1 when the refusal is conservative. */
  public long conflictAddress() {
    return conflictAddress;
  }

  /**
   * True when the sequencer could not judge the snapshot (failover, evicted key) and refused
   * conservatively.
   */
  public boolean snapshotTooOld() {
    return cause == Cause.SNAPSHOT_TOO_OLD;
  }

  /** Why the token was refused. */
  public Cause refusal() {
    return cause;
  }

  public TokenRefusedException(
      StreamId stream, byte[] conflictKey, long conflictAddress, boolean snapshotTooOld) {
    this(
        stream,
        conflictKey,
        conflictAddress,
        snapshotTooOld ? Cause.SNAPSHOT_TOO_OLD : Cause.CONFLICT);
  }

  public TokenRefusedException(
      StreamId stream, byte[] conflictKey, long conflictAddress, Cause cause) {
    super(message(stream, conflictKey, conflictAddress, cause));
    this.stream = stream;
    this.conflictKey = conflictKey == null ? new byte[0] : conflictKey.clone();
    this.conflictAddress = conflictAddress;
    this.cause = cause;
  }

  /** A refusal of a transaction whose snapshot, on {@code stream}, predates a sequencer restart. */
  public static TokenRefusedException sequencerRestarted(StreamId stream) {
    return new TokenRefusedException(stream, new byte[0], -1, Cause.SEQUENCER_RESTARTED);
  }

  /** The most bytes of a key {@link #shortKey} shows. */
  private static final int KEY_SHOWN = 32;

  /**
   * A serialized key on one short line, for a message that cannot decode it: printable ASCII as it
   * is, other bytes as {@code \xNN}, the first {@value #KEY_SHOWN} bytes and the length of a longer
   * one.
   */
  public static String shortKey(byte[] key) {
    StringBuilder b = new StringBuilder("'");
    for (int i = 0; i < Math.min(key.length, KEY_SHOWN); i++) {
      int c = key[i] & 0xff;
      if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'') {
        b.append((char) c);
      } else {
        b.append(String.format("\\x%02x", c));
      }
    }
    b.append('\'');
    if (key.length > KEY_SHOWN) {
      b.append("... (").append(key.length).append(" bytes)");
    }
    return b.toString();
  }

  private static String message(
      StreamId stream, byte[] conflictKey, long conflictAddress, Cause cause) {
    return switch (cause) {
      case SNAPSHOT_TOO_OLD -> "snapshot too old to judge conflicts on stream " + stream;
      case SEQUENCER_RESTARTED ->
          "a new epoch began since the snapshot was taken (the sequencer restarted or failed over"
              + " to another node, or the layout changed; it read stream "
              + stream
              + "); tokens issued before it are fenced, so the snapshot cannot be judged";
      case CONFLICT ->
          "stream "
              + stream
              + (conflictKey != null && conflictKey.length > 0
                  ? " key " + shortKey(conflictKey)
                  : "")
              + " was written at global address "
              + conflictAddress
              + " after the snapshot";
    };
  }
}
