package io.vcorfu.logunit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@link Preallocation} zeroes and cuts, on a real file. */
class PreallocationUnitTest {
  @TempDir Path dir;

  private FileChannel open() throws IOException {
    return FileChannel.open(
        dir.resolve("segment"),
        StandardOpenOption.CREATE,
        StandardOpenOption.READ,
        StandardOpenOption.WRITE);
  }

  private static void records(FileChannel ch, int bytes) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(bytes);
    while (b.hasRemaining()) {
      b.put((byte) 'r');
    }
    b.flip();
    while (b.hasRemaining()) {
      ch.write(b);
    }
  }

  @Test
  void smallBatchesKeepHalfTheAheadZeroedAndBulkOnesGetNone() throws IOException {
    try (FileChannel ch = open()) {
      Preallocation p = new Preallocation(1, 0, 16 << 20);
      records(ch, 100);
      p.keepAhead(ch, 100, 100);
      assertThat(ch.size()).isEqualTo(100 + Preallocation.AHEAD);
      ByteBuffer tail = ByteBuffer.allocate((int) Preallocation.AHEAD);
      ch.read(tail, 100);
      assertThat(tail.array()).containsOnly(0);

      // Written over the zeroes, up to just before half of them is used: nothing more is zeroed.
      long written = 100 + Preallocation.AHEAD / 2 - 1;
      records(ch, (int) (written - 100));
      p.keepAhead(ch, written, 1000);
      assertThat(ch.size()).isEqualTo(100 + Preallocation.AHEAD);
      records(ch, 2);
      p.keepAhead(ch, written + 2, 2);
      assertThat(ch.size()).isEqualTo(written + 2 + Preallocation.AHEAD);

      // A bulk batch past the zeroes: the file grows by its records only.
      long end = ch.size() + Preallocation.BULK;
      records(ch, (int) (end - written - 2));
      p.keepAhead(ch, end, Preallocation.BULK);
      assertThat(ch.size()).isEqualTo(end);

      assertThat(p.trim(ch, end)).isFalse();
      records(ch, 10);
      p.keepAhead(ch, end + 10, 10);
      assertThat(p.fileEnd(1)).isEqualTo(end + 10 + Preallocation.AHEAD);
      assertThat(p.fileEnd(2)).as("another segment").isZero();
      assertThat(p.trim(ch, end + 10)).isTrue();
      assertThat(ch.size()).isEqualTo(end + 10);
      assertThat(p.fileEnd(1)).isEqualTo(end + 10);
      p.reset(2);
      assertThat(p.fileEnd(1)).isZero();
      assertThat(p.fileEnd(2)).isZero();
    }
  }

  @Test
  void noZeroesPastTheSegmentSize() throws IOException {
    try (FileChannel ch = open()) {
      Preallocation p = new Preallocation(1, 0, 64 << 10);
      records(ch, 1000);
      p.keepAhead(ch, 1000, 1000);
      assertThat(ch.size()).isEqualTo(64 << 10);
      assertThat(Files.size(dir.resolve("segment"))).isEqualTo(64 << 10);
    }
  }
}
