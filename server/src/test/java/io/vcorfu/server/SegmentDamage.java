package io.vcorfu.server;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** Damages a stopped node's storage the way a bad disk would, for tests of start-up checks. */
public final class SegmentDamage {
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

  /**
   * Flips a bit of the last byte of every copy of {@code marker} in the segment files under {@code
   * dir} (recursively) while the node may be running, as someone altering the files would; returns
   * how many copies it altered.
   */
  public static int flipEnd(Path dir, byte[] marker) throws IOException {
    int flipped = 0;
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path seg : files.filter(p -> p.toString().endsWith(".log")).toList()) {
        byte[] bytes = Files.readAllBytes(seg);
        for (int i = 0; i + marker.length <= bytes.length; i++) {
          if (java.util.Arrays.equals(bytes, i, i + marker.length, marker, 0, marker.length)) {
            try (RandomAccessFile f = new RandomAccessFile(seg.toFile(), "rw")) {
              f.seek(i + marker.length - 1);
              f.write(bytes[i + marker.length - 1] ^ 0x20);
            }
            flipped++;
          }
        }
      }
    }
    return flipped;
  }
}
