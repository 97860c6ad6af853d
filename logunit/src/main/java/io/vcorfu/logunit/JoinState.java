package io.vcorfu.logunit;

/**
 * Whether a node's replicas are <em>rebuilding</em>: they joined their chains at epoch {@link
 * #since()} (0: they are full members) and hold, of what the chains wrote before, only what a
 * rebuild has copied to them. Shared by the log and stream replica of one {@link ReplicaStore}.
 *
 * <p>While rebuilding, a replica never decides anything and serves no reads; it must also never
 * hold anything a reader could take for a decision it did not copy. Its rules:
 *
 * <ul>
 *   <li>A write of an entry stamped with an epoch before {@code since} (a repair re-driving an
 *       entry of before the join) is acknowledged without being stored: the rebuild copies that
 *       slot's decision instead.
 *   <li>A fill leaves an <em>uncommitted</em> hole, whatever the request asks: a fill of a slot of
 *       before the join may find the entry at the next replica, so the hole here need not be the
 *       decision. (It still refuses a later write, as a head's hole must.)
 *   <li>A commit of a slot holding nothing is ignored (its copy was acknowledged unstored).
 *   <li>Reads fail with NotServing.
 * </ul>
 *
 * So every committed record of a rebuilding replica is a decision: one it held before it left its
 * chains, one a rebuild copied, or one committed by its chain since it joined.
 */
final class JoinState {
  private volatile long since;

  /**
   * The streams whose older entries the node is still copying from the log, after it took up their
   * empty chain (see {@code Takeover} in the server); their reads fail with NotServing meanwhile.
   */
  private volatile java.util.function.Predicate<io.vcorfu.protocol.StreamId> copying = s -> false;

  private volatile String copyingWhy = "";

  /** The epoch the replicas joined their chains at as rebuilding replicas; 0 when full members. */
  long since() {
    return since;
  }

  boolean rebuilding() {
    return since > 0;
  }

  void set(long epoch) {
    since = epoch;
  }

  void copying(java.util.function.Predicate<io.vcorfu.protocol.StreamId> streams, String why) {
    copyingWhy = why;
    copying = streams;
  }

  /**
   * Fails with NotServing while rebuilding, or while {@code stream}'s older entries are still being
   * copied from the log.
   */
  void checkServesReads(String role, io.vcorfu.protocol.StreamId stream) {
    checkServesReads(role);
    if (copying.test(stream)) {
      throw new io.vcorfu.protocol.NotServingException(role, copyingWhy);
    }
  }

  /** Fails with NotServing while rebuilding: a rebuilding replica serves no reads. */
  void checkServesReads(String role) {
    long s = since;
    if (s > 0) {
      throw new io.vcorfu.protocol.NotServingException(
          role,
          "it is a rebuilding replica (joined at epoch "
              + s
              + "): it serves no reads until it is promoted");
    }
  }
}
