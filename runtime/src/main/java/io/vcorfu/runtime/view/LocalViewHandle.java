package io.vcorfu.runtime.view;

import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.ReadOnlyViewException;
import io.vcorfu.runtime.Version;
import io.vcorfu.runtime.proxy.MethodKind;
import io.vcorfu.runtime.proxy.MethodModel;
import io.vcorfu.runtime.proxy.ObjectHandle;
import io.vcorfu.runtime.smr.RuntimeCore;
import io.vcorfu.runtime.smr.SmrEngine;
import io.vcorfu.runtime.smr.SmrRecord;
import io.vcorfu.runtime.smr.UpdateCodec;
import io.vcorfu.runtime.tx.TxContext;
import java.util.concurrent.Callable;

/**
 * Routes a proxy's annotated calls: to the view's SMR engine outside a transaction, to the calling
 * thread's transaction inside one. A snapshot view serves accessors at its fixed address (inside a
 * transaction too, without joining the read set) and refuses mutators.
 */
public final class LocalViewHandle implements ObjectHandle {
  private final RuntimeCore core;
  private final SmrEngine view;
  private final Version asOf;

  /** {@code asOf} is {@link Version#LIVE} for a live local view, or a snapshot view's version. */
  public LocalViewHandle(RuntimeCore core, SmrEngine view, Version asOf) {
    this.core = core;
    this.view = view;
    this.asOf = asOf;
  }

  @Override
  public StreamId stream() {
    return view.stream();
  }

  @Override
  public RuntimeCore core() {
    return core;
  }

  public SmrEngine view() {
    return view;
  }

  public boolean snapshot() {
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
            return view.access(body);
          }
          return tx.read(view, m, args, body);
        }
      case MUTATOR:
      case MUTATOR_ACCESSOR:
        {
          if (snapshot()) {
            throw new ReadOnlyViewException(
                "method "
                    + m.signature()
                    + " changes the object, but this is a "
                    + "snapshot view of stream "
                    + view.stream()
                    + " as of global address "
                    + asOf.address());
          }
          SmrRecord.Update update = UpdateCodec.toUpdate(view.stream(), m, args, view.serializer());
          TxContext tx = core.transactions().current();
          if (tx != null) {
            return tx.write(view, m, update);
          }
          if (m.kind() == MethodKind.MUTATOR) {
            view.append(update);
            return null;
          }
          return view.appendAndApply(update);
        }
      default:
        throw new IllegalStateException("unknown method kind " + m.kind());
    }
  }
}
