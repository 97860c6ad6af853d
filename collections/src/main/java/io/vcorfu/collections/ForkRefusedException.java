package io.vcorfu.collections;

/**
 * A fork of a {@link CSMRMap} could not be created (see {@link CSMRMap#fork}); nothing was written.
 * {@link #reason()} says why, the message says it for a person.
 */
public final class ForkRefusedException extends IllegalArgumentException {
  /** Why a fork was refused. */
  public enum Reason {
    /** A map (or fork) of that name exists already. */
    NAME_TAKEN,
    /** The base version is past the log's tail: that version of the parent does not exist yet. */
    BASE_PAST_TAIL,
    /** The base version is below -1, or the parent's history at it was trimmed. */
    BASE_UNAVAILABLE
  }

  private final Reason reason;
  private final String forkName;

  public ForkRefusedException(Reason reason, String forkName, String message, Throwable cause) {
    super(message, cause);
    this.reason = reason;
    this.forkName = forkName;
  }

  public Reason reason() {
    return reason;
  }

  /** The name the fork was asked for. */
  public String forkName() {
    return forkName;
  }
}
