package io.vcorfu.layout;

import java.nio.file.Path;
import java.util.concurrent.CompletionException;

/**
 * Child-process body for {@link FileLayoutStoreProcessTest}: repeatedly reads the store and tries
 * to advance it by one version; prints how many of its compare-and-sets won.
 *
 * <p>Arguments: {@code file attempts}.
 */
public final class FileLayoutStoreCasWorker {
  public static void main(String[] args) {
    Path file = Path.of(args[0]);
    int attempts = Integer.parseInt(args[1]);
    int wins = 0;
    try (FileLayoutStore store = new FileLayoutStore(file)) {
      for (int i = 0; i < attempts; i++) {
        Versioned<Layout> current = store.get().join();
        try {
          store
              .compareAndSet(
                  current.version(), current.value().withEpoch(current.value().epoch() + 1))
              .join();
          wins++;
        } catch (CompletionException e) {
          if (!(e.getCause() instanceof LayoutVersionMismatchException)) {
            throw e;
          }
        }
      }
    }
    System.out.println("wins=" + wins);
  }
}
