package io.vcorfu.client.model;

import static io.vcorfu.client.model.ModelState.DATA;
import static io.vcorfu.client.model.ModelState.DATA_COMMITTED;
import static io.vcorfu.client.model.ModelState.EMPTY;
import static io.vcorfu.client.model.ModelState.HOLE;
import static io.vcorfu.client.model.ModelState.HOLE_COMMITTED;
import static io.vcorfu.client.model.ModelState.TRIMMED;

/**
 * The replica operations on one slot, each atomic at its replica, as {@code LogReplica}, {@code
 * StreamReplica} and {@code HoleFill} do them. A slot belongs to one entry (one writer per
 * address), so "holds the entry" is "holds data".
 */
final class Replicas {
  /** A node answers; does not answer yet (crashed: the request waits); or was removed. */
  enum Reach {
    OK,
    BLOCKED,
    GONE
  }

  /** What a data write found. */
  enum Write {
    WRITTEN,
    OVERWRITTEN,
    TRIMMED
  }

  private final ModelState m;

  Replicas(ModelState m) {
    this.m = m;
  }

  Reach reach(byte[] s, int copy) {
    return reachNode(s, m.config().nodeOf(copy));
  }

  Reach reachNode(byte[] s, int node) {
    int bit = 1 << node;
    if ((ModelState.removed(s) & bit) != 0) {
      return Reach.GONE;
    }
    return (s[ModelState.CRASHED] & bit) != 0 ? Reach.BLOCKED : Reach.OK;
  }

  /**
   * A data write (write-once): an empty slot takes the entry (committed with {@code commit}); the
   * same entry again is idempotent (and committed with {@code commit}); anything else is refused.
   */
  Write write(byte[] s, int address, int copy, boolean commit) {
    byte held = m.slot(s, address, copy);
    switch (held) {
      case EMPTY -> m.setSlot(s, address, copy, commit ? DATA_COMMITTED : DATA);
      case DATA -> m.setSlot(s, address, copy, commit ? DATA_COMMITTED : DATA);
      case DATA_COMMITTED -> {}
      case TRIMMED -> {
        return Write.TRIMMED;
      }
      default -> {
        return Write.OVERWRITTEN;
      }
    }
    return Write.WRITTEN;
  }

  /**
   * A fill: an empty slot gets a hole, committed iff {@code commit}; with {@code abort} an
   * uncommitted entry is replaced by a hole (committed, as {@code HoleFill} does, unless {@code
   * keepUncommitted}: the new operation the parallel rule's abort at the decider needs); with
   * {@code commit} an uncommitted hole is committed; anything else is left. Returns the slot after.
   */
  byte fill(
      byte[] s, int address, int copy, boolean abort, boolean commit, boolean keepUncommitted) {
    byte held = m.slot(s, address, copy);
    byte after = held;
    if (held == EMPTY) {
      after = commit ? HOLE_COMMITTED : HOLE;
    } else if (held == DATA && abort) {
      after = keepUncommitted ? HOLE : HOLE_COMMITTED;
    } else if (held == HOLE && commit) {
      after = HOLE_COMMITTED;
    }
    m.setSlot(s, address, copy, after);
    return after;
  }

  /**
   * A commit: an uncommitted entry is committed; holes, committed entries and trimmed slots are
   * left as they are (no error); an empty slot is refused (false).
   */
  boolean commit(byte[] s, int address, int copy) {
    byte held = m.slot(s, address, copy);
    if (held == EMPTY) {
      return false;
    }
    if (held == DATA) {
      m.setSlot(s, address, copy, DATA_COMMITTED);
    }
    return true;
  }

  /** A trim of the slot's stream past the slot: whatever it held is gone. */
  void trim(byte[] s, int address, int copy) {
    m.setSlot(s, address, copy, TRIMMED);
  }

  /** True if an abort-fill would change the slot (so an optional one is worth exploring). */
  boolean abortChanges(byte[] s, int address, int copy) {
    byte held = m.slot(s, address, copy);
    return held == EMPTY || held == DATA || held == HOLE;
  }
}
