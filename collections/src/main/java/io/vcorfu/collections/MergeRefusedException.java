package io.vcorfu.collections;

/**
 * A merge could not start (see {@link CSMRMap#merge(CSMRMap)}); nothing was written. {@link
 * #reason()} says why, the message says it for a person.
 */
public final class MergeRefusedException extends IllegalArgumentException {
  /** Why a merge was refused. */
  public enum Reason {
    /** The source is the target itself. */
    SAME_MAP,
    /**
     * The two maps share no history: neither descends from the other or from a common map by forks,
     * and they were never merged.
     */
    NO_COMMON_BASE,
    /** The common base's version was trimmed from the history of the map that holds it. */
    BASE_UNAVAILABLE
  }

  private final Reason reason;

  public MergeRefusedException(Reason reason, String message, Throwable cause) {
    super(message, cause);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
