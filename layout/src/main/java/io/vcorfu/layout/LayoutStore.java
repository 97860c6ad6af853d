package io.vcorfu.layout;

import java.util.concurrent.CompletableFuture;

/**
 * Where the cluster's current layout is agreed: a single versioned value updated only by
 * compare-and-set. One implementation per backend (a local file for a single node; ZooKeeper for a
 * cluster).
 *
 * <p>Versions start at 0 for the first stored layout and grow by exactly one per successful update.
 * Implementations are thread-safe. When a returned future completes successfully the value is
 * durable in the backend. Nobody retries on the caller's behalf: a lost compare-and-set fails with
 * {@link LayoutVersionMismatchException} and the caller re-reads and re-decides.
 */
public interface LayoutStore extends AutoCloseable {
  /** The {@code expectedVersion} meaning "the store holds no layout yet". */
  long NO_VERSION = -1;

  /**
   * The stored layout and its version; fails with {@link LayoutNotFoundException} when the store
   * holds none yet.
   */
  CompletableFuture<Versioned<Layout>> get();

  /**
   * Stores {@code next} if the stored version is {@code expectedVersion} ({@link #NO_VERSION} to
   * create the first one). Completes with the new value and version, or fails with {@link
   * LayoutVersionMismatchException} when the version moved (nothing is written then).
   */
  CompletableFuture<Versioned<Layout>> compareAndSet(long expectedVersion, Layout next);

  /** Releases the store's resources; later calls fail with {@link IllegalStateException}. */
  @Override
  void close();
}
