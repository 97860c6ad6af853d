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
 * <p>Checkpoints ({@code VCorfuRuntime.checkpoint}) of such an object hold one value instead of its
 * fields: {@link #toCheckpoint} of its current version, encoded by the object's serializer; a view
 * opened from the checkpoint gets it back through {@link #fromCheckpoint} and {@link
 * #restoreVersion}. The defaults pass the version through unchanged, which suits versions the
 * serializer encodes as they are (records, lists, maps of allowed values).
 *
 * <p>{@link #captureVersion} and {@link #restoreVersion} run under the view's lock, never
 * concurrently with an upcall on the same instance; {@link #toCheckpoint} and {@link
 * #fromCheckpoint} may run on any thread and must depend on their argument only.
 *
 * @param <V> the captured version: an immutable value holding the whole state
 */
public interface VersionCapturing<V> {
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

  /**
   * Bytes that the updates applied since the last call left reachable from older versions only,
   * beyond what the runtime already counts for each applied entry (its serialized arguments, which
   * stand for the values it replaced, and 256 bytes for the copied path): for example an update
   * that replaces a record by a copy with one field changed keeps the old record's whole map alive
   * in the versions before it. Called by the runtime after it applies each entry to a live view,
   * under the view's lock, to charge the captured version against {@code
   * RuntimeOptions.retainedHistoryBytes}; the count starts again from 0 after each call. Default:
   * 0.
   */
  default long takeReplacedBytes() {
    return 0;
  }

  /**
   * {@code version} as a value the object's serializer can encode (for example a {@code
   * java.util.Map} of the entries of a persistent map), for a checkpoint. Default: {@code version}
   * itself.
   */
  default Object toCheckpoint(V version) {
    return version;
  }

  /**
   * The version {@link #toCheckpoint} was given, rebuilt from what it returned (after decoding).
   */
  @SuppressWarnings("unchecked")
  default V fromCheckpoint(Object checkpoint) {
    return (V) checkpoint;
  }
}
