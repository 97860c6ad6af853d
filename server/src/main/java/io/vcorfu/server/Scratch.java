package io.vcorfu.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * What a node's process needs for a throwaway node of its own (the warm-up's cluster, the class
 * training run): a free port of 127.0.0.1 and the removal of a scratch directory.
 */
public final class Scratch {
  private Scratch() {}

  /** A port of 127.0.0.1 free now (another process may take it before it is bound again). */
  public static int freeLocalPort() throws IOException {
    try (ServerSocket s = new ServerSocket()) {
      s.bind(new InetSocketAddress("127.0.0.1", 0));
      return s.getLocalPort();
    }
  }

  /** Deletes {@code dir} and everything under it. */
  public static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      files
          .sorted(Comparator.reverseOrder())
          .forEach(
              p -> {
                try {
                  Files.delete(p);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }
}
