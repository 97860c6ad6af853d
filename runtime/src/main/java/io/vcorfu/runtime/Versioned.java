package io.vcorfu.runtime;

/**
 * Implemented by a replicated class whose whole state lives in persistent data structures
 * (immutable, structure-sharing: an update builds a new version in O(log n) and leaves older
 * versions intact), so the runtime can keep one version per applied update instead of rebuilding
 * old versions by replay.
 *
 * <p>A view of such a class captures a version after every update it applies. A snapshot read, an
 * {@code asOf} view and a transaction's private copy then start from the captured version at or
 * below their address and cost O(1) to set up, however large the object and however far back the
 * version: nothing is copied or replayed. Classes that do not implement this interface are served
 * by replaying their history onto a fresh instance.
 *
 * <p>Both methods run under the view's lock, never concurrently with an upcall on the same
 * instance.
 *
 * @param <V> the captured version: an immutable value holding the whole state
 */
public interface Versioned<V> {
  /**
   * The current state as an immutable value. Must cost O(1) (return the roots of the persistent
   * structures), and later updates of this instance must not change what it returned.
   */
  V captureVersion();

  /**
   * Makes this instance (a new instance in the class's initial state) hold exactly {@code version};
   * later updates of this instance must not change {@code version}.
   */
  void restoreVersion(V version);
}
