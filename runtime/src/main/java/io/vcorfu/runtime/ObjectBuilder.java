package io.vcorfu.runtime;

import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.internal.ObjectDirectory;
import io.vcorfu.runtime.serialization.Serializer;
import java.util.Objects;

/**
 * How to open one object: a local view (the default) or a snapshot view, and its serializer. Not
 * thread-safe; build and open on one thread.
 */
public final class ObjectBuilder<T> {
  private final ObjectDirectory directory;
  private final StreamId stream;
  private final Class<T> type;
  private Serializer serializer;
  private long asOf = Long.MIN_VALUE;

  ObjectBuilder(ObjectDirectory directory, StreamId stream, Class<T> type) {
    this.directory = directory;
    this.stream = stream;
    this.type = type;
  }

  /** The serializer for this object's arguments (default: the runtime's). */
  public ObjectBuilder<T> serializer(Serializer s) {
    this.serializer = Objects.requireNonNull(s, "serializer");
    return this;
  }

  /** A local view: the state lives in this client and follows the stream's tail (the default). */
  public ObjectBuilder<T> local() {
    this.asOf = Long.MIN_VALUE;
    return this;
  }

  /**
   * A snapshot view: the object exactly as of global address {@code address} (every update at or
   * below it applied, none above; -1 = before any write). The view is read-only: mutators fail
   * with {@link ReadOnlyViewException}. Each call to {@link #open()} makes a new view.
   *
   * <p>Cost: when this runtime has the object open locally, the snapshot is rebuilt in memory by
   * replaying the local view's retained history up to {@code address} onto the initial state (or
   * checkpoint) it started from, with no log reads. Otherwise the view plays the stream from the log
   * up to {@code address}, once, on first use.
   */
  public ObjectBuilder<T> asOf(long address) {
    if (address < -1) {
      throw new IllegalArgumentException("a snapshot address must be -1 or more, not " + address);
    }
    this.asOf = address;
    return this;
  }

  /** Opens the view. */
  public T open() {
    if (asOf == Long.MIN_VALUE) {
      return directory.openLocal(stream, type, serializer);
    }
    return directory.openSnapshot(stream, type, serializer, asOf);
  }
}
