package io.vcorfu.logunit;

import io.vcorfu.protocol.NotServingException;
import io.vcorfu.protocol.StreamId;
import java.util.function.LongPredicate;
import java.util.function.Predicate;

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
 *
 * <p>A node may rebuild only some of its chains while it keeps serving the others (a member that
 * joined chains a failed node left short): then these rules hold for the <em>scope</em> it was
 * given, the log addresses and streams of the chains it rebuilds, and nowhere else. A log read of a
 * range that holds addresses of both kinds answers the rebuilt ones EMPTY (the chain's other
 * replicas decide them; a reader keeps only the addresses of the chain it asked) and fails with
 * NotServing when every address is in the scope.
 */
final class JoinState {
  /** What is rebuilt since when; one immutable value so that a reader sees all of it or none. */
  private record Scope(long since, LongPredicate log, Predicate<StreamId> streams) {}

  private static final Scope NONE = new Scope(0, a -> false, s -> false);

  private volatile Scope scope = NONE;

  /**
   * The streams whose older entries the node is still copying from the log, after it took up their
   * empty chain (see {@code Takeover} in the server); their reads fail with NotServing meanwhile.
   */
  private volatile Predicate<StreamId> copying = s -> false;

  private volatile String copyingWhy = "";

  /** The join epoch of the last rebuild that took its chains' trim marks and pins; 0: none. */
  private volatile long marksTakenSince;

  /** The epoch the replicas joined their chains at as rebuilding replicas; 0 when full members. */
  long since() {
    return scope.since();
  }

  boolean rebuilding() {
    return scope.since() > 0;
  }

  /** True when {@code address} is a log address of a chain this node rebuilds. */
  boolean rebuildsLog(long address) {
    Scope s = scope;
    return s.since() > 0 && s.log().test(address);
  }

  /** True when {@code stream} is placed on a stream chain this node rebuilds. */
  boolean rebuildsStream(StreamId stream) {
    Scope s = scope;
    return s.since() > 0 && s.streams().test(stream);
  }

  /** Rebuilding every chain since {@code epoch}; 0 makes the node a full member everywhere. */
  void set(long epoch) {
    set(epoch, a -> true, s -> true);
  }

  /**
   * Rebuilding, since {@code epoch}, the chains of the log addresses {@code log} accepts and of the
   * streams {@code streams} accepts; a full member everywhere else (and everywhere with 0).
   */
  void set(long epoch, LongPredicate log, Predicate<StreamId> streams) {
    scope = epoch <= 0 ? NONE : new Scope(epoch, log, streams);
  }

  /** The rebuild of the chains joined at epoch {@code since} took their trim marks and pins. */
  void marksTaken(long since) {
    marksTakenSince = since;
  }

  /**
   * Fails with NotServing while {@code stream}'s chain is rebuilt here and the rebuild has not yet
   * taken the chain's trim marks and pins: a trim here then could pass a pin the chain holds and
   * this replica does not yet, leaving it short of history the chain keeps.
   */
  void checkTrims(String role, StreamId stream) {
    Scope s = scope;
    if (s.since() > 0 && s.streams().test(stream) && marksTakenSince != s.since()) {
      throw new NotServingException(
          role,
          "it is a rebuilding replica (joined at epoch "
              + s.since()
              + ") that has not yet taken its chain's trim marks and pins; try again shortly");
    }
  }

  void copying(Predicate<StreamId> streams, String why) {
    copyingWhy = why;
    copying = streams;
  }

  /**
   * Fails with NotServing while {@code stream}'s chain is rebuilt here, or while its older entries
   * are still being copied from the log.
   */
  void checkServesReads(String role, StreamId stream) {
    if (rebuildsStream(stream)) {
      throw refusal(role);
    }
    if (copying.test(stream)) {
      throw new NotServingException(role, copyingWhy);
    }
  }

  /**
   * For a log read of {@code [from, to]}: null when every address is served here; else the
   * addresses of chains rebuilt here, to be answered EMPTY. Fails with NotServing when every
   * address is one of those.
   */
  LongPredicate logReadsHidden(String role, long from, long to) {
    Scope s = scope;
    if (s.since() <= 0) {
      return null;
    }
    boolean anyServed = false;
    boolean anyHidden = false;
    for (long a = from; a <= to && !(anyServed && anyHidden); a++) {
      if (s.log().test(a)) {
        anyHidden = true;
      } else {
        anyServed = true;
      }
    }
    if (!anyHidden) {
      return null;
    }
    if (!anyServed) {
      throw refusal(role);
    }
    return s.log();
  }

  private NotServingException refusal(String role) {
    return new NotServingException(
        role,
        "it is a rebuilding replica (joined at epoch "
            + scope.since()
            + "): it serves no reads of the chains it rebuilds until it is promoted");
  }
}
