package io.vcorfu.server;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** Damages a stopped node's storage the way a bad disk would, for tests of start-up checks. */
final class SegmentDamage {
  private SegmentDamage() {}

  /**
   * Flips bits of the byte in the middle of the first segment under {@code dataDir}; returns that
   * segment.
   */
  static Path flipMiddleByteOfFirstSegment(Path dataDir) throws IOException {
    Path segment;
    try (Stream<Path> files = Files.list(dataDir.resolve("replicas"))) {
      segment =
          files
              .filter(p -> p.getFileName().toString().endsWith(".log"))
              .sorted()
              .findFirst()
              .orElseThrow();
    }
    long middle = Files.size(segment) / 2;
    try (RandomAccessFile f = new RandomAccessFile(segment.toFile(), "rw")) {
      f.seek(middle);
      int b = f.read();
      f.seek(middle);
      f.write(b ^ 0x5a);
    }
    return segment;
  }
}
