package io.vcorfu.layout;

/**
 * A {@link LayoutStore} call failed because the store's backend could not be reached (for {@link
 * ZkLayoutStore}: the connection to ZooKeeper was lost or never made, the session expired, or the
 * request timed out).
 *
 * <p>A read that fails this way read nothing. A {@link LayoutStore#compareAndSet} that fails this
 * way has an <em>unknown outcome</em>: its request may have been committed before the answer was
 * lost. The store never retries it; the caller re-reads the store (once it is reachable again) to
 * learn whether its layout is the stored one, and re-decides.
 */
public final class LayoutStoreUnavailableException extends LayoutException {
  public LayoutStoreUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
