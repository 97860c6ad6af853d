package io.vcorfu.runtime;

import io.vcorfu.client.DirectoryEntry;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.serialization.Serializer;
import io.vcorfu.runtime.smr.RuntimeCore;
import io.vcorfu.runtime.view.ObjectDirectory;
import java.util.Objects;

/**
 * How to open one object: a local view (the default), a remote view, or a snapshot view of either,
 * and its serializer. Not thread-safe; build and open on one thread.
 */
public final class ObjectBuilder<T> {
  private final RuntimeCore core;
  private final ObjectDirectory directory;
  private final StreamId stream;
  private final String name;
  private final Class<T> type;
  private String describedAs;
  private Serializer serializer;
  private Version asOf = Version.LIVE;
  private boolean remote;
  private boolean held;
  private Retention retention;

  /** {@code name}: the name the object was opened by, or null when opened by its stream id. */
  ObjectBuilder(
      RuntimeCore core, ObjectDirectory directory, StreamId stream, String name, Class<T> type) {
    this.core = core;
    this.directory = directory;
    this.stream = stream;
    this.name = name;
    this.type = type;
  }

  /**
   * How messages of this runtime name the object, instead of its class and name ({@code Counter
   * 'hits'}) or, for an object opened by stream id, the id: a collection over several streams names
   * each of them as the collection ({@code map 'users'}), so a transaction conflict on one says
   * {@code map 'users' key 'alice'}. The first name a stream is given in a runtime stays.
   */
  public ObjectBuilder<T> describedAs(String what) {
    this.describedAs = Objects.requireNonNull(what, "what");
    return this;
  }

  /** The serializer for this object's arguments (default: the runtime's). */
  public ObjectBuilder<T> serializer(Serializer s) {
    this.serializer = Objects.requireNonNull(s, "serializer");
    return this;
  }

  /**
   * The checkpoints and retained history of this object, instead of the runtime's (see {@link
   * Retention}; for a live local view): an object whose history is a feature keeps more ({@code
   * Retention.DEFAULT.withRetainTime(Duration.ofDays(30))}), a busy cache less. The setting holds
   * for the object's stream while this runtime has it open; another runtime writing the same object
   * trims it by its own setting, so give every runtime that writes the object the same one. A
   * remote view's object is checkpointed and trimmed by its host, which follows the cluster's
   * retention ({@code vcorfu cluster retention}).
   */
  public ObjectBuilder<T> retention(Retention r) {
    this.retention = Objects.requireNonNull(r, "retention");
    return this;
  }

  /** A local view: the state lives in this client and follows the stream's tail (the default). */
  public ObjectBuilder<T> local() {
    this.asOf = Version.LIVE;
    this.remote = false;
    return this;
  }

  /**
   * A remote view: the state lives on the server holding the last replica of the object's stream
   * (the host), which keeps the object materialized and checkpoints it periodically. The class must
   * be on the host's class path ({@code vcorfu server --classpath}); the host uses its runtime's
   * default serializer, so a remote view cannot take {@link #serializer(Serializer)}.
   *
   * <p>Semantics, call by call:
   *
   * <ul>
   *   <li>{@code @Accessor}: sent to the host, which syncs its view to the stream's tail and runs
   *       the method there (linearizable, like a local view's accessor). Inside a transaction it is
   *       sent with the transaction's snapshot and the transaction's buffered updates to this
   *       object: the host runs it on the state as of the snapshot with those updates applied in
   *       order (opacity and read-own-writes), and the read joins the read set.
   *   <li>{@code @Mutator}: appended to the log by this client, exactly as for a local view (or
   *       buffered into the open transaction).
   *   <li>{@code @MutatorAccessor}: appended at global address A, then the host runs the method on
   *       the state as of A - 1, which is exactly what the update's upcall produced at A. Inside a
   *       transaction: buffered, and its result computed by the host on the snapshot plus the
   *       earlier buffered updates.
   *   <li>{@code @TransactionalMethod}: runs here, in a transaction, as for a local view.
   *   <li>Methods without annotations run here on this proxy, which holds only the class's initial
   *       state.
   * </ul>
   *
   * An exception thrown by the object's method on the host arrives as a {@link RemoteCallException}
   * carrying the exception's class name and message. A host that cannot load the class answers with
   * {@link io.vcorfu.protocol.BadRequestException} naming it. A stream log without servers (an
   * in-memory one) fails every remote call with {@link io.vcorfu.protocol.NotServingException}.
   * Combine with {@link #asOf(long)} for a remote snapshot view (read-only: accessors run on the
   * host's state as of that address).
   */
  public ObjectBuilder<T> remote() {
    this.remote = true;
    return this;
  }

  /**
   * A snapshot view: the object exactly as of global address {@code address} (every update at or
   * below it applied, none above; -1 = before any write). The view is read-only: mutators fail with
   * {@link ReadOnlyViewException}. Each call to {@link #open()} makes a new view.
   *
   * <p>Cost: when this runtime has the object open locally and its class implements {@link
   * VersionCapturing}, the snapshot is the version the local view captured at or below {@code
   * address}, restored in O(1) with nothing replayed or copied (as long as the view still keeps a
   * version that old, see {@link RuntimeOptions#retainedVersions}). For other classes open locally,
   * the snapshot is rebuilt in memory by replaying the local view's retained history up to {@code
   * address} onto the initial state (or checkpoint) it started from, with no log reads. Otherwise
   * the view starts from the newest checkpoint at or below {@code address} and plays the stream
   * from there up to {@code address}, once, on first use. A version older than the object's
   * retained history (see {@link #retention}) fails with {@link
   * io.vcorfu.protocol.TrimmedException} naming the stream and its trim mark, never with another
   * version's state.
   */
  public ObjectBuilder<T> asOf(long address) {
    this.asOf = Version.at(address);
    return this;
  }

  /**
   * The version to open: {@link Version#LIVE} (the default, as after {@link #local()} or for a
   * remote view of the latest state) or a snapshot version, as {@link #asOf(long)}.
   */
  public ObjectBuilder<T> asOf(Version version) {
    this.asOf = Objects.requireNonNull(version, "version");
    return this;
  }

  /**
   * For a snapshot view ({@link #asOf(long)}) of a stream whose history the caller holds ({@link
   * VCorfuRuntime#pinHistory(StreamId, String)}): the view registers no snapshot. A snapshot view
   * otherwise holds back every client's trims of every object past its version while it is
   * reachable (until the garbage collector drops it or the runtime closes), since a snapshot may be
   * read anywhere; under a hold the stream's own history stays readable and nothing else need wait.
   * Forks read their parents this way. Reading the view after the hold is released may fail with
   * {@link io.vcorfu.protocol.TrimmedException}.
   */
  public ObjectBuilder<T> underHold() {
    this.held = true;
    return this;
  }

  /**
   * Opens the view.
   *
   * @throws ObjectOpenException if a remote view was asked for with its own serializer
   */
  public T open() {
    T view = openView();
    core.labels()
        .label(
            stream,
            describedAs != null
                ? describedAs
                : name != null ? type.getSimpleName() + " '" + name + "'" : null,
            serializer != null ? serializer : core.options().serializer());
    if (name != null && asOf.isLive()) {
      // Before the caller can write anything under the name (see NameDirectory).
      core.register(DirectoryEntry.of(DirectoryEntry.OBJECT, name, type.getName(), stream, 0));
    }
    return view;
  }

  private T openView() {
    if (held && (remote || asOf.isLive())) {
      throw new ObjectOpenException(
          "underHold() is for a snapshot view (asOf) of stream "
              + stream
              + ", not for a "
              + (remote ? "remote" : "live")
              + " view");
    }
    if (retention != null && (remote || !asOf.isLive())) {
      throw new ObjectOpenException(
          "a retention is set for a live local view of stream "
              + stream
              + ", not for a "
              + (remote ? "remote" : "snapshot")
              + " view: a remote view's host follows the cluster's retention (`vcorfu cluster"
              + " retention`), and a snapshot view writes nothing");
    }
    if (remote) {
      if (serializer != null) {
        throw new ObjectOpenException(
            "a remote view of stream "
                + stream
                + " cannot take its own serializer: "
                + "the host encodes results with its runtime's default serializer");
      }
      return directory.openRemote(stream, type, null, asOf);
    }
    if (asOf.isLive()) {
      T view = directory.openLocal(stream, type, serializer);
      if (retention != null) {
        directory.retain(stream, retention);
      }
      return view;
    }
    return directory.openSnapshot(stream, type, serializer, asOf, held);
  }
}
