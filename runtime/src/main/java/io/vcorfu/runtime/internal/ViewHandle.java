package io.vcorfu.runtime.internal;

import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.ReadOnlyViewException;
import java.util.concurrent.Callable;

/**
 * Routes a proxy's annotated calls: to the view's SMR engine outside a transaction, to the calling
 * thread's transaction inside one. A snapshot view serves accessors at its fixed address (inside a
 * transaction too, without joining the read set) and refuses mutators.
 */
final class ViewHandle implements ObjectHandle {
  private final RuntimeCore core;
  private final StreamView view;
  private final long asOf;

  /** {@code asOf} is the snapshot address, or -2 for a live local view. */
  ViewHandle(RuntimeCore core, StreamView view, long asOf) {
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

  StreamView view() {
    return view;
  }

  boolean snapshot() {
    return asOf != -2;
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
                    + asOf);
          }
          SmrRecord.Update update = Calls.toUpdate(view.stream(), m, args, view.serializer());
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
