package io.vcorfu.runtime.smr;

import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.runtime.VersionCapturing;
import io.vcorfu.runtime.proxy.ClassModel;
import io.vcorfu.runtime.serialization.Serializer;

/**
 * The old versions one SMR engine can serve: the state as of an address at or above its base, for
 * snapshot reads, transaction private copies and snapshot views.
 *
 * <ul>
 *   <li>For a class implementing {@link VersionCapturing}, a version captured after the base and
 *       after every entry the engine applies ({@link CapturedVersions}: the newest {@code
 *       RuntimeOptions.retainedVersions} and those an open transaction may read, within {@code
 *       retainedHistoryBytes}); an old version is then a new instance restored to the captured
 *       version at or below the address: O(1) to set up, nothing replayed or copied, whatever the
 *       object's size.
 *   <li>Otherwise (and for addresses older than every captured version) the {@link UpdateHistory}
 *       replays retained updates (or, for objects that outgrew the retention bound, the stream from
 *       the log) onto a fresh instance brought to the base, with a small cache of rebuilt versions.
 * </ul>
 *
 * <p>Not thread-safe: used under its {@link SmrEngine}'s lock.
 */
final class OldVersions {
  private final StreamId stream;
  private final ClassModel model;
  private final UpdateHistory history;
  private final CapturedVersions captured;

  OldVersions(
      RuntimeCore core,
      StreamId stream,
      ClassModel model,
      Serializer serializer,
      ViewBase base,
      HistoryBudget budget) {
    this.stream = stream;
    this.model = model;
    this.history = new UpdateHistory(core, stream, model, serializer, base, budget);
    this.captured =
        VersionCapturing.class.isAssignableFrom(model.type())
            ? new CapturedVersions(
                core.options().retainedVersions(), budget, core.transactions()::versionsFloor)
            : null;
  }

  /** Gives what these old versions hold back to their budget (they are replaced). */
  void release() {
    history.release();
    if (captured != null) {
      captured.release();
    }
  }

  UpdateHistory history() {
    return history;
  }

  /** Brings {@code live}, in the class's initial state, to the base, and keeps that version. */
  void start(Object live) {
    history.applyBase(live);
    if (captured != null) {
      captured.capture(history.baseVersion(), live, 0);
    }
  }

  long baseVersion() {
    return history.baseVersion();
  }

  /** Fails unless {@code snapshot} is at or above the base. */
  void requireServable(long snapshot) {
    if (snapshot < history.baseVersion()) {
      throw new TrimmedException(history.baseVersion(), stream);
    }
  }

  /**
   * Keeps what the live state {@code live} became by applying {@code a}: the update itself (for
   * replay).
   */
  void retain(UpdateHistory.Applied a) {
    history.retain(a);
  }

  /**
   * Keeps the version of {@code live} after the entry at {@code address}, whose updates carried
   * {@code argumentBytes} bytes of serialized arguments (a {@code VersionCapturing} class only).
   */
  void captureAfter(long address, Object live, long argumentBytes) {
    if (captured != null) {
      captured.capture(address, live, argumentBytes);
    }
  }

  /**
   * A read-only instance holding the state as of {@code snapshot}: a restored captured version, or
   * a (cached) rebuilt one. The live state has consumed the stream below {@code streamPos} and
   * every update up to {@code version}, which is at least {@code snapshot}.
   */
  Object readOnlyAt(long snapshot, long streamPos, long version) {
    if (captured != null) {
      Object state = model.newState();
      if (captured.restoreInto(state, snapshot)) {
        return state;
      }
    }
    return history.versionAt(snapshot, streamPos, version);
  }

  /**
   * Brings {@code target}, a new instance in the class's initial state, to the state as of {@code
   * snapshot}: the captured version at or below it when one is kept, else by replay.
   */
  void buildInto(Object target, long snapshot, long streamPos, long version) {
    if (captured == null || !captured.restoreInto(target, snapshot)) {
      history.replayInto(target, snapshot, streamPos, version);
    }
  }
}
