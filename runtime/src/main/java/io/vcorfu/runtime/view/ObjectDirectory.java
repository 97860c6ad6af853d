package io.vcorfu.runtime.view;

import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.ObjectOpenException;
import io.vcorfu.runtime.Version;
import io.vcorfu.runtime.checkpoint.Checkpoints;
import io.vcorfu.runtime.proxy.ClassModel;
import io.vcorfu.runtime.proxy.MethodModel;
import io.vcorfu.runtime.proxy.ProxyFactory;
import io.vcorfu.runtime.serialization.Serializer;
import io.vcorfu.runtime.smr.RuntimeCore;
import io.vcorfu.runtime.smr.SmrEngine;
import io.vcorfu.runtime.smr.ViewBase;
import io.vcorfu.runtime.tx.TxContext;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Opens views for one runtime. Live local views are shared: opening the same stream again returns
 * the same proxy; a newly opened one starts from the stream's latest checkpoint (see {@link
 * Checkpoints}), if any. Snapshot and remote views are new each time. Thread-safe.
 */
public final class ObjectDirectory {
  private record Opened(Class<?> type, Serializer serializer, Object proxy, SmrEngine view) {}

  private final RuntimeCore core;
  private final Map<StreamId, Opened> live = new ConcurrentHashMap<>();
  private final Map<StreamId, io.vcorfu.runtime.Retention> retentions = new ConcurrentHashMap<>();

  /** The snapshot views this runtime opened, while their proxies are reachable, with versions. */
  private final java.util.Queue<Map.Entry<java.lang.ref.WeakReference<Object>, Long>> snapshots =
      new java.util.concurrent.ConcurrentLinkedQueue<>();

  public ObjectDirectory(RuntimeCore core) {
    this.core = core;
  }

  /**
   * The local view of {@code stream} as a {@code type}, opened on first use.
   *
   * @param serializer the object's serializer, or null for the runtime's default
   */
  public <T> T openLocal(StreamId stream, Class<T> type, Serializer serializer) {
    ViewBase base = ViewBase.INITIAL;
    if (!live.containsKey(stream)) {
      core.checkOpen();
      ProxyFactory.Proxied proxied = ProxyFactory.forClass(type);
      base =
          Checkpoints.latest(
              core, stream, proxied.model(), serializerFor(proxied.model(), serializer));
      TxContext tx = core.transactions().current();
      if (tx != null && base.version() > tx.snapshot()) {
        // The open transaction must be able to read the object as of its older snapshot.
        base =
            Checkpoints.atOrBelow(
                core,
                stream,
                proxied.model(),
                serializerFor(proxied.model(), serializer),
                tx.snapshot());
      }
    }
    return openLocal(stream, type, serializer, base);
  }

  /**
   * Like {@link #openLocal(StreamId, Class, Serializer)}, starting a newly opened view from {@code
   * base}.
   */
  public <T> T openLocal(StreamId stream, Class<T> type, Serializer serializer, ViewBase base) {
    core.checkOpen();
    ProxyFactory.Proxied proxied = ProxyFactory.forClass(type);
    Opened o =
        live.computeIfAbsent(
            stream,
            s -> {
              Serializer ser = serializerFor(proxied.model(), serializer);
              SmrEngine view = new SmrEngine(core, s, proxied.model(), ser, Version.LIVE, base);
              Object proxy = proxied.newInstance(new LocalViewHandle(core, view, Version.LIVE));
              view.attach(proxy);
              view.rebaseFrom(() -> Checkpoints.latest(core, s, proxied.model(), ser));
              return new Opened(type, ser, proxy, view);
            });
    if (o.type() != type) {
      throw new ObjectOpenException(
          "stream "
              + stream
              + " is already open in this runtime as "
              + o.type().getName()
              + ", not "
              + type.getName());
    }
    if (serializer != null && o.serializer() != serializer) {
      throw new ObjectOpenException(
          "stream " + stream + " is already open in this runtime with another serializer");
    }
    return type.cast(o.proxy());
  }

  /**
   * One live local view this runtime has open, and the retention set for its object (null: the
   * runtime's).
   */
  public record LiveView(
      StreamId stream, Object proxy, SmrEngine engine, io.vcorfu.runtime.Retention retention) {}

  /**
   * Keeps {@code retention} for the object on {@code stream} instead of the runtime's (null: the
   * runtime's again), while this runtime has it open as a live view.
   */
  public void retain(StreamId stream, io.vcorfu.runtime.Retention retention) {
    if (retention == null) {
      retentions.remove(stream);
    } else {
      retentions.put(stream, retention);
    }
  }

  /**
   * The oldest version of the snapshot views this runtime opened that are still reachable; {@link
   * Long#MAX_VALUE} when none is. Forgets the views collected since.
   */
  public long oldestSnapshotView() {
    long oldest = Long.MAX_VALUE;
    for (java.util.Iterator<Map.Entry<java.lang.ref.WeakReference<Object>, Long>> it =
            snapshots.iterator();
        it.hasNext(); ) {
      Map.Entry<java.lang.ref.WeakReference<Object>, Long> e = it.next();
      if (e.getKey().get() == null) {
        it.remove();
      } else {
        oldest = Math.min(oldest, e.getValue());
      }
    }
    return oldest;
  }

  /**
   * Forgets snapshot view {@code proxy}: it no longer holds back any trim (from this runtime's next
   * registration, within a second). Returns whether it was a registered snapshot view here.
   */
  public boolean release(Object proxy) {
    return snapshots.removeIf(e -> e.getKey().get() == proxy);
  }

  /** Every live local view this runtime has open now. */
  public java.util.List<LiveView> liveViews() {
    java.util.List<LiveView> out = new java.util.ArrayList<>(live.size());
    live.forEach((s, o) -> out.add(new LiveView(s, o.proxy(), o.view(), retentions.get(s))));
    return out;
  }

  /**
   * A read-only view of {@code stream} as of global address {@code asOf}. When the stream is open
   * locally in this runtime as the same type and that view can serve {@code asOf}, the snapshot is
   * built from the local view without reading the log (restored from a captured version for a
   * {@code VersionCapturing} class, replayed from the retained history otherwise); otherwise the
   * new view plays the stream from the log up to {@code asOf} on first use. Such a view is
   * registered as this runtime's snapshot while its proxy is reachable (no client trims past it),
   * unless {@code held}: the caller holds the stream's history (a pin), which keeps the version
   * readable for this stream alone, so the view holds back no other trim.
   */
  public <T> T openSnapshot(
      StreamId stream, Class<T> type, Serializer serializer, Version version, boolean held) {
    core.checkOpen();
    if (version.isLive()) {
      throw new IllegalArgumentException("a snapshot view needs an address, not the live version");
    }
    long asOf = version.address();
    checkWritten(asOf);
    ProxyFactory.Proxied proxied = ProxyFactory.forClass(type);
    Serializer ser = serializerFor(proxied.model(), serializer);
    Opened local = live.get(stream);
    if (local != null && local.type() == type) {
      SmrEngine frozen =
          new SmrEngine(
              core, stream, proxied.model(), ser, version, new ViewBase(asOf, 0, List.of()));
      Object proxy = proxied.newInstance(new LocalViewHandle(core, frozen, version));
      if (local.view().buildInto(proxy, asOf)) {
        frozen.attach(proxy);
        return type.cast(proxy);
      }
    }
    // From the newest checkpoint at or below the version: the stream below it may be trimmed.
    ViewBase base = Checkpoints.atOrBelow(core, stream, proxied.model(), ser, asOf);
    SmrEngine view = new SmrEngine(core, stream, proxied.model(), ser, version, base);
    Object proxy = proxied.newInstance(new LocalViewHandle(core, view, version));
    if (!held) {
      snapshots.add(Map.entry(new java.lang.ref.WeakReference<>(proxy), asOf));
    }
    view.attach(proxy);
    return type.cast(proxy);
  }

  /**
   * Refuses a snapshot of an address the log has not reached yet: that version does not exist, and
   * a view of it would silently show a later state once the log grows past it.
   */
  private void checkWritten(long asOf) {
    if (asOf < -1) {
      throw new io.vcorfu.runtime.ObjectOpenException(
          "a snapshot needs an address at or above -1 (before the first entry), not " + asOf);
    }
    long tail = core.await(core.log().tails(List.of())).globalTail();
    if (asOf > tail) {
      throw new io.vcorfu.runtime.ObjectOpenException(
          "asOf("
              + asOf
              + ") is beyond the log's tail ("
              + tail
              + "): no version of the object exists there yet");
    }
  }

  /**
   * A remote view of {@code stream} as a {@code type}: a new proxy holding no state, whose calls go
   * to the stream's host. {@code asOf} is {@link Version#LIVE} for the latest state, or a snapshot
   * version.
   */
  public <T> T openRemote(StreamId stream, Class<T> type, Serializer serializer, Version asOf) {
    if (!asOf.isLive()) {
      checkWritten(asOf.address());
    }
    core.checkOpen();
    ProxyFactory.Proxied proxied = ProxyFactory.forClass(type);
    Serializer ser = serializerFor(proxied.model(), serializer);
    return type.cast(
        proxied.newInstance(new RemoteViewHandle(core, stream, proxied.model(), ser, asOf)));
  }

  private Serializer serializerFor(ClassModel model, Serializer chosen) {
    Serializer ser = chosen != null ? chosen : core.options().serializer();
    for (MethodModel m : model.methods()) {
      Method method = m.method();
      for (Type t : method.getGenericParameterTypes()) {
        ser.permit(t);
      }
      ser.permit(method.getGenericReturnType());
    }
    return ser;
  }
}
