package io.vcorfu.runtime.view;

import io.vcorfu.client.ClassBundle;
import io.vcorfu.client.ViewCall;
import io.vcorfu.client.ViewCallResult;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.ReadOnlyViewException;
import io.vcorfu.runtime.RemoteCallException;
import io.vcorfu.runtime.Version;
import io.vcorfu.runtime.classes.ClassBundles;
import io.vcorfu.runtime.proxy.ClassModel;
import io.vcorfu.runtime.proxy.MethodKind;
import io.vcorfu.runtime.proxy.MethodModel;
import io.vcorfu.runtime.proxy.ObjectHandle;
import io.vcorfu.runtime.serialization.Serializer;
import io.vcorfu.runtime.smr.RuntimeCore;
import io.vcorfu.runtime.smr.SmrRecord;
import io.vcorfu.runtime.smr.UpdateCodec;
import io.vcorfu.runtime.tx.TxContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * Routes a remote view's annotated calls: accessors travel to the stream's host as view calls,
 * mutators append to the log (or buffer into the calling thread's transaction), and a
 * mutator-accessor appends at address A and then asks the host what its upcall produced there (the
 * method run on the state as of A - 1). Holds no state of the object. Thread-safe.
 *
 * <p>A view call only reads, so the stream log sends it again when its host cannot be reached, does
 * not answer or refuses its epoch, to the host the refreshed layout names, within the log's
 * failover timeout (see {@link io.vcorfu.client.StreamLog#viewCall}).
 *
 * <p>Each call names the version of the object's class it runs by its class bundle's digest ({@link
 * ClassBundles}); the log ships the bundle to a host that asks for it. A class without a bundle
 * (one of vcorfu's, or without a readable code source) is named by name only, and the host runs the
 * version its class path has.
 */
public final class RemoteViewHandle implements ObjectHandle {
  private final RuntimeCore core;
  private final StreamId stream;
  private final ClassModel model;
  private final Serializer serializer;
  private final Version asOf;
  private final ClassBundle bundle;

  @Override
  public StreamId stream() {
    return stream;
  }

  @Override
  public RuntimeCore core() {
    return core;
  }

  /** {@code asOf} is {@link Version#LIVE}, or the version of a remote snapshot view. */
  public RemoteViewHandle(
      RuntimeCore core, StreamId stream, ClassModel model, Serializer serializer, Version asOf) {
    this.core = core;
    this.stream = stream;
    this.model = model;
    this.serializer = serializer;
    this.asOf = asOf;
    this.bundle = ClassBundles.of(model.type());
  }

  private boolean snapshot() {
    return !asOf.isLive();
  }

  @Override
  public Object invoke(Object self, MethodModel m, Object[] args, Callable<Object> body)
      throws Exception {
    core.checkOpen();
    switch (m.kind()) {
      case TRANSACTIONAL:
        return core.transactions().runMethod(m.readOnly(), body);
      case ACCESSOR:
        {
          TxContext tx = core.transactions().current();
          if (tx == null || snapshot()) {
            return call(m, args, asOf, List.of());
          }
          tx.readRemote(stream, UpdateCodec.conflictKey(m, args, serializer));
          return call(m, args, Version.at(tx.snapshot()), tx.bufferedFor(stream));
        }
      case MUTATOR:
      case MUTATOR_ACCESSOR:
        {
          if (snapshot()) {
            throw new ReadOnlyViewException(
                "method "
                    + m.signature()
                    + " changes the object, but this is a "
                    + "remote snapshot view of stream "
                    + stream
                    + " as of global address "
                    + asOf.address());
          }
          SmrRecord.Update update = UpdateCodec.toUpdate(stream, m, args, serializer);
          TxContext tx = core.transactions().current();
          if (tx != null) {
            List<SmrRecord.Update> before = tx.bufferedFor(stream);
            tx.writeRemote(m, update);
            return m.kind() == MethodKind.MUTATOR
                ? null
                : call(m, args, Version.at(tx.snapshot()), before);
          }
          long address = UpdateCodec.appendAlone(core, update).globalAddress();
          return m.kind() == MethodKind.MUTATOR
              ? null
              : call(m, args, Version.at(address - 1), List.of());
        }
      default:
        throw new IllegalStateException("unknown method kind " + m.kind());
    }
  }

  /**
   * Asks the host to run {@code m} on the state as of {@code at} with {@code pending} applied on
   * top.
   */
  private Object call(MethodModel m, Object[] args, Version at, List<SmrRecord.Update> pending) {
    List<byte[]> encodedArgs = new ArrayList<>();
    for (Object a : args) {
      encodedArgs.add(serializer.serialize(a));
    }
    List<byte[]> encodedPending = new ArrayList<>();
    for (SmrRecord.Update u : pending) {
      encodedPending.add(SmrRecord.encode(List.of(u)));
    }
    ViewCall call =
        new ViewCall(
            stream,
            model.type().getName(),
            m.signature(),
            encodedArgs,
            at.toWire(),
            encodedPending,
            bundle);
    ViewCallResult r = core.await(core.log().viewCall(call));
    if (r.failed()) {
      throw new RemoteCallException(stream, m.signature(), r.failureType(), r.failureMessage());
    }
    return serializer.deserialize(r.result());
  }
}
