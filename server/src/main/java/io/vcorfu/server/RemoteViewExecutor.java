package io.vcorfu.server;

import com.google.protobuf.ByteString;
import io.vcorfu.client.ClassBundle;
import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.VCorfuException;
import io.vcorfu.protocol.proto.ViewCallRequest;
import io.vcorfu.protocol.proto.ViewCallResponse;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.Version;
import io.vcorfu.runtime.checkpoint.Checkpoints;
import io.vcorfu.runtime.classes.ClassBundles;
import io.vcorfu.runtime.proxy.ClassModel;
import io.vcorfu.runtime.proxy.MethodKind;
import io.vcorfu.runtime.proxy.MethodModel;
import io.vcorfu.runtime.proxy.ProxyFactory;
import io.vcorfu.runtime.serialization.SerializationException;
import io.vcorfu.runtime.serialization.Serializer;
import io.vcorfu.runtime.smr.SmrRecord;
import io.vcorfu.runtime.smr.UpcallRunner;
import io.vcorfu.runtime.smr.UpdateCodec;
import java.lang.reflect.InvocationTargetException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs remote-view calls on the host: keeps a local view of every object asked for (opened on first
 * use, from its latest checkpoint) on the host's own runtime, and checkpoints each one every {@code
 * checkpointEvery} stream entries played and on a timer.
 *
 * <p>A call for the latest state runs the accessor through the live view, which syncs to the
 * stream's tail first (linearizable). A call as of a global address runs on a private copy: the
 * object as of that address (rebuilt from the live view's retained history when it can be), with
 * the request's pending updates applied in order on top. An exception the object's method throws is
 * returned in the response; errors of the host itself fail the call with a typed exception.
 *
 * <p>Thread-safe. Calls block on the stream log: run them off any I/O thread. Owns the runtime and
 * closes it with itself.
 */
final class RemoteViewExecutor implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RemoteViewExecutor.class);

  /** One hosted object: its live view and the stream position of its last checkpoint. */
  private static final class Hosted {
    final Object proxy;
    final ClassModel model;
    long checkpointedPos;

    Hosted(Object proxy, ClassModel model, long checkpointedPos) {
      this.proxy = proxy;
      this.model = model;
      this.checkpointedPos = checkpointedPos;
    }
  }

  private final VCorfuRuntime runtime;
  private final ClassLoader classes;
  private final long checkpointEvery;
  private final Map<StreamId, Hosted> hosted = new ConcurrentHashMap<>();
  private final ScheduledExecutorService timer;

  /**
   * @param classes where the objects' classes are loaded from
   * @param checkpointEvery checkpoint a hosted object once this many entries of its stream were
   *     played since its last checkpoint
   * @param checkpointInterval also checkpoint, at this interval, every hosted object that played
   *     anything since its last checkpoint
   */
  RemoteViewExecutor(
      VCorfuRuntime runtime,
      ClassLoader classes,
      long checkpointEvery,
      Duration checkpointInterval) {
    if (checkpointEvery < 1) {
      throw new IllegalArgumentException(
          "checkpoints must be at least 1 update apart, not " + checkpointEvery);
    }
    this.runtime = runtime;
    this.classes = classes;
    this.checkpointEvery = checkpointEvery;
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "vcorfu-view-checkpoints");
              t.setDaemon(true);
              return t;
            });
    long ms = checkpointInterval.toMillis();
    timer.scheduleWithFixedDelay(this::checkpointChanged, ms, ms, TimeUnit.MILLISECONDS);
  }

  /**
   * Runs one call.
   *
   * @throws BadRequestException if the class cannot be loaded, has no such method, or the method
   *     cannot be run that way (anything but an accessor for the latest state)
   */
  public ViewCallResponse execute(ViewCallRequest request) {
    StreamId stream = StreamId.fromMsg(request.getStream());
    Class<?> type = load(request.getType());
    Hosted h = host(stream, type);
    MethodModel m = h.model.method(request.getMethod());
    if (m == null || m.kind() == MethodKind.TRANSACTIONAL) {
      throw new BadRequestException(
          "class " + type.getName() + " has no accessor or mutator " + request.getMethod());
    }
    Serializer ser = runtime.options().serializer();
    Object[] args = new Object[request.getArgsCount()];
    for (int i = 0; i < args.length; i++) {
      args[i] = ser.deserialize(request.getArgs(i).toByteArray());
    }
    List<SmrRecord.Update> pending = pending(stream, request);
    ViewCallResponse.Builder out = ViewCallResponse.newBuilder();
    Object result;
    try {
      Version at = versionOf(request);
      if (at.isLive()) {
        result = latest(h, m, args, request);
        out.setVersion(Checkpoints.version(h.proxy));
      } else {
        result = asOf(stream, type, m, args, at, pending);
        out.setVersion(at.address());
      }
      out.setResult(ByteString.copyFrom(ser.serialize(result)));
    } catch (VCorfuException e) {
      throw e;
    } catch (Exception e) {
      out.setFailureType(e.getClass().getName())
          .setFailureMessage(e.getMessage() == null ? "" : e.getMessage());
    }
    maybeCheckpoint(h, checkpointEvery);
    return out.build();
  }

  private Object latest(Hosted h, MethodModel m, Object[] args, ViewCallRequest request)
      throws Exception {
    if (m.kind() != MethodKind.ACCESSOR || request.getPendingCount() > 0) {
      throw new BadRequestException(
          "method "
              + m.signature()
              + " can run on the latest state only as an "
              + "accessor without pending updates; send it with a snapshot address");
    }
    try {
      return m.method().invoke(h.proxy, args);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof Exception ex) {
        throw ex;
      }
      throw (Error) e.getCause();
    }
  }

  /** The request's pending updates to {@code stream}, decoded. */
  private static List<SmrRecord.Update> pending(StreamId stream, ViewCallRequest request) {
    List<SmrRecord.Update> out = new ArrayList<>();
    for (ByteString entry : request.getPendingList()) {
      try {
        for (SmrRecord.Update u : SmrRecord.decode(entry.toByteArray())) {
          if (u.stream().equals(stream)) {
            out.add(u);
          }
        }
      } catch (SerializationException e) {
        throw new BadRequestException("a pending update is not an SMR entry: " + e.getMessage());
      }
    }
    return out;
  }

  /** The version a request asks for, converted from its wire form. */
  private static Version versionOf(ViewCallRequest request) {
    try {
      return Version.fromWire(request.getAsOf());
    } catch (IllegalArgumentException e) {
      throw new BadRequestException(
          "a snapshot address must be -1 or more, not " + request.getAsOf());
    }
  }

  private Object asOf(
      StreamId stream,
      Class<?> type,
      MethodModel m,
      Object[] args,
      Version at,
      List<SmrRecord.Update> pending)
      throws Exception {
    Object state = runtime.objects().builder(stream, type).asOf(at).open();
    Serializer ser = runtime.options().serializer();
    ClassModel model = ProxyFactory.forClass(type).model();
    for (SmrRecord.Update u : pending) {
      MethodModel pm = model.method(u.signature());
      if (pm == null || !pm.writes()) {
        throw new BadRequestException(
            "a pending update calls "
                + u.signature()
                + ", which is not a mutator of "
                + type.getName());
      }
      try {
        UpcallRunner.apply(state, pm, UpdateCodec.decodeArgs(u.args(), ser));
      } catch (VCorfuException e) {
        throw e;
      } catch (Exception e) {
        LOG.debug("Pending upcall {} threw on the copy of stream {}", pm.signature(), stream, e);
      }
    }
    return UpcallRunner.apply(state, m, args);
  }

  /** Where this executor loads object classes from. */
  ClassLoader classes() {
    return classes;
  }

  /**
   * Whether this executor's class {@code name} is the version whose bundle has {@code digest}; null
   * when it cannot load a class of that name at all.
   */
  Boolean hasVersion(String name, byte[] digest) {
    Class<?> type;
    try {
      type = Class.forName(name, false, classes);
    } catch (ClassNotFoundException | LinkageError e) {
      return null;
    }
    ClassBundle own = ClassBundles.of(type);
    return own != null && own.hasDigest(digest);
  }

  /**
   * The object class {@code name}, loaded but not yet initialized: a class that is not an object
   * class (no {@code @Accessor}, {@code @Mutator} or {@code @MutatorAccessor} method) is refused
   * before any of its code runs, so a caller cannot have the node construct any class it can name.
   */
  private Class<?> load(String name) {
    try {
      Class<?> type = Class.forName(name, false, classes);
      io.vcorfu.runtime.proxy.ClassModel model;
      try {
        model = io.vcorfu.runtime.proxy.ClassModel.of(type);
      } catch (io.vcorfu.runtime.ObjectOpenException e) {
        throw new BadRequestException(
            "the remote-view host runs only object classes: " + e.getMessage());
      }
      if (!model.methods().iterator().hasNext()) {
        throw new BadRequestException(
            "the remote-view host runs only object classes, and "
                + name
                + " has no @Accessor, @Mutator or @MutatorAccessor method");
      }
      return type;
    } catch (ClassNotFoundException | LinkageError e) {
      throw new BadRequestException(
          "the remote-view host cannot load class "
              + name
              + " ("
              + e
              + "); start the server with --classpath naming where the class is");
    }
  }

  private Hosted host(StreamId stream, Class<?> type) {
    Hosted h = hosted.get(stream);
    if (h != null && h.model.type() == type) {
      return h;
    }
    Object proxy = runtime.objects().builder(stream, type).open();
    return hosted.computeIfAbsent(
        stream,
        s -> new Hosted(proxy, ProxyFactory.forClass(type).model(), Checkpoints.position(proxy)));
  }

  /** Checkpoints every hosted object that played at least one entry since its last checkpoint. */
  public void checkpointChanged() {
    for (Hosted h : hosted.values()) {
      try {
        maybeCheckpoint(h, 1);
      } catch (RuntimeException e) {
        LOG.warn("Checkpointing a {} failed: {}", h.model.type().getName(), e.toString());
      }
    }
  }

  private void maybeCheckpoint(Hosted h, long threshold) {
    synchronized (h) {
      long pos = Checkpoints.position(h.proxy);
      if (pos - h.checkpointedPos < threshold) {
        return;
      }
      runtime.checkpoint(h.proxy);
      h.checkpointedPos = pos;
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
    runtime.close();
  }
}
