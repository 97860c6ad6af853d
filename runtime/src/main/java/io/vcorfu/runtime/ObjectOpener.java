package io.vcorfu.runtime;

import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.smr.RuntimeCore;
import io.vcorfu.runtime.view.ObjectDirectory;

/**
 * Opens objects of one runtime. An object's stream id is derived from its name by {@link
 * StreamId#of(String)} (the RFC 4122 name-based UUID of the name's UTF-8 bytes), so the same name
 * always reaches the same object from every client. A live view opened by name registers the name
 * in the cluster's name directory ({@link io.vcorfu.client.NameDirectory}) the first time this
 * runtime opens it, before anything can be written under it.
 */
public final class ObjectOpener {
  private final RuntimeCore core;
  private final ObjectDirectory directory;

  ObjectOpener(RuntimeCore core, ObjectDirectory directory) {
    this.core = core;
    this.directory = directory;
  }

  /**
   * The local view of the object called {@code name}. Opening the same name again in this runtime
   * returns the same proxy.
   *
   * @throws ObjectOpenException if {@code type} cannot be proxied (the message names the problem)
   *     or the name is already open as another type
   */
  public <T> T open(String name, Class<T> type) {
    return builder(name, type).open();
  }

  /** Options for opening the object called {@code name}. */
  public <T> ObjectBuilder<T> builder(String name, Class<T> type) {
    core.checkOpen();
    return new ObjectBuilder<>(core, directory, StreamId.of(name), name, type);
  }

  /**
   * Ends snapshot view {@code view} (opened with {@link ObjectBuilder#asOf(long)}) as far as trims
   * are concerned: while a snapshot view that replays from the log is reachable, its runtime
   * registers its version and no client trims any object past it; released, it holds back nothing
   * from this runtime's next registration on (within about a second), without waiting for the
   * garbage collector. Reading it afterwards may fail with {@link
   * io.vcorfu.protocol.TrimmedException} once trims pass its version. Returns whether {@code view}
   * was such a view of this runtime (false for live, remote, held and in-memory-built snapshots,
   * which register nothing, and for a view released before).
   */
  public boolean release(Object view) {
    return directory.release(view);
  }

  /**
   * Options for opening the object on stream {@code stream}. An object opened by its stream id is
   * not registered in the name directory: collections over several streams open their parts this
   * way and register their own name.
   */
  public <T> ObjectBuilder<T> builder(StreamId stream, Class<T> type) {
    core.checkOpen();
    return new ObjectBuilder<>(core, directory, stream, null, type);
  }
}
