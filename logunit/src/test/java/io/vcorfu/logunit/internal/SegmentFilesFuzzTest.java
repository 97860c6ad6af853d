package io.vcorfu.logunit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.vcorfu.logunit.CorruptSegmentException;
import io.vcorfu.logunit.FsyncPolicy;
import io.vcorfu.logunit.StorageMode;
import io.vcorfu.logunit.StorageOptions;
import io.vcorfu.protocol.ServerErrorException;
import io.vcorfu.protocol.StreamId;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * Arbitrary files in a data directory, as a bad disk or a crash could leave them: a sealed segment
 * ({@code segment-000001.log}), its index file ({@code segment-000001.idx}) and the active segment
 * ({@code segment-000002.log}). Opening the store either fails with {@link
 * CorruptSegmentException}, or succeeds with an index whose records (up to address 64 of each
 * namespace) name payloads no longer than a segment file and load to bytes of their length (or fail
 * with {@link ServerErrorException}); then opening it again succeeds, and with the same index
 * (namespaces, their trim marks and highest addresses, the highest global address, those records)
 * unless the first opening deleted sealed segments that held nothing live. (A segment's trim marks
 * are repeated at the start of the next one when it rolls, so deleting it loses none; these files
 * need not keep that, and then a second opening can differ.) Nothing else: no other exception.
 *
 * <p>The input is a list of chunks, {@code kind:byte length:u16 bytes[length]}. Kind modulo 5: 0
 * and 1 a record of the sealed or the active segment, framed with a valid checksum by the test (so
 * that the decoder behind the checksum is reached); 2 and 3 raw bytes in that segment; 4 an op of
 * the index file, which the test frames with a valid header and checksum. A file without chunks is
 * not written.
 *
 * <p>Corpus: {@code SegmentFilesFuzzTestInputs/anySegmentFilesOpenOrAreCorrupt}.
 */
class SegmentFilesFuzzTest {
  private static final int INDEX_MAGIC = 0x56434958;
  private static final int INDEX_VERSION = 2;
  private static final int LOOKUPS = 64;

  /**
   * Where each input's files go: memory ({@code /dev/shm}) where there is one, so that an input
   * costs no disk write or fsync; else the temporary directory.
   */
  private static final Path SCRATCH =
      Files.isDirectory(Path.of("/dev/shm")) && Files.isWritable(Path.of("/dev/shm"))
          ? Path.of("/dev/shm")
          : Path.of(System.getProperty("java.io.tmpdir"));

  @FuzzTest(maxDuration = "10m")
  void anySegmentFilesOpenOrAreCorrupt(byte[] input) throws IOException {
    ByteArrayOutputStream sealed = new ByteArrayOutputStream();
    ByteArrayOutputStream active = new ByteArrayOutputStream();
    List<byte[]> indexOps = new ArrayList<>();
    ByteBuffer in = ByteBuffer.wrap(input);
    while (in.remaining() >= 3) {
      int kind = (in.get() & 0xFF) % 5;
      byte[] bytes = new byte[Math.min(in.getShort() & 0xFFFF, in.remaining())];
      in.get(bytes);
      switch (kind) {
        case 0 -> sealed.writeBytes(frame(bytes));
        case 1 -> active.writeBytes(frame(bytes));
        case 2 -> sealed.writeBytes(bytes);
        case 3 -> active.writeBytes(bytes);
        default -> indexOps.add(bytes);
      }
    }
    Path dir = Files.createTempDirectory(SCRATCH, "segment-fuzz");
    try {
      write(dir.resolve("segment-000001.log"), sealed.toByteArray());
      write(dir.resolve("segment-000002.log"), active.toByteArray());
      if (!indexOps.isEmpty()) {
        Files.write(dir.resolve("segment-000001.idx"), indexFile(indexOps, sealed.size()));
      }
      long fileBytes = Math.max(sealed.size(), active.size());
      Opened first;
      try {
        first = open(dir, fileBytes);
      } catch (CorruptSegmentException corrupt) {
        return;
      }
      Opened second = open(dir, fileBytes);
      if (first.segmentsDeleted() == 0) {
        assertThat(second.index())
            .as("the store opens again to the same index")
            .isEqualTo(first.index());
      }
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(SegmentFilesFuzzTest::delete);
      }
    }
  }

  /** What one opening found: the index, described, and how many segments it deleted. */
  private record Opened(String index, int segmentsDeleted) {}

  /**
   * Opens the store in {@code dir}, describes its index and loads its records, checking each is no
   * longer than {@code fileBytes}, the longer segment file.
   */
  private static Opened open(Path dir, long fileBytes) throws IOException {
    StorageOptions options =
        StorageOptions.builder()
            .mode(StorageMode.DURABLE)
            .directory(dir)
            .fsyncPolicy(FsyncPolicy.ALWAYS)
            .compactBelow(0)
            .directorySync(d -> {})
            .build();
    StringBuilder out = new StringBuilder();
    try (StorageEngine engine = StorageEngine.open(options)) {
      out.append("maxGlobal=").append(engine.maxGlobal());
      List<StreamId> namespaces = new ArrayList<>(engine.namespaces());
      namespaces.sort(Comparator.comparing(StreamId::toString));
      for (StreamId ns : namespaces) {
        out.append('\n').append(ns).append(" trim=").append(engine.trimMark(ns));
        out.append(" max=").append(engine.maxAddress(ns));
        for (long a = Math.max(0, engine.trimMark(ns)); a < LOOKUPS; a++) {
          IndexedRecord r = engine.lookup(ns, a);
          if (r != null) {
            out.append(' ').append(a).append(':').append(r.flags()).append('/').append(r.global());
            out.append('/').append(r.pos()).append('/').append(r.len());
            assertThat((long) r.len())
                .as("a payload within the files")
                .isLessThanOrEqualTo(fileBytes);
            byte[] bytes;
            try {
              bytes = engine.load(ns, r);
            } catch (ServerErrorException unreadable) {
              continue;
            }
            if (bytes != null) {
              assertThat(bytes).hasSize(r.len());
            }
          }
        }
      }
      return new Opened(out.toString(), engine.recoveryStats().segmentsDeleted());
    }
  }

  private static byte[] frame(byte[] body) {
    byte[] frame = new byte[RecordCodec.FRAME_HEADER + body.length];
    ByteBuffer.wrap(frame).putInt(RecordCodec.MAGIC).putInt(body.length).putInt(0).put(body);
    ByteBuffer.wrap(frame).putInt(8, RecordCodec.crc(frame, 4, body.length));
    return frame;
  }

  private static byte[] indexFile(List<byte[]> ops, long segmentLength) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteBuffer header = ByteBuffer.allocate(24);
    header.putInt(INDEX_MAGIC).putInt(INDEX_VERSION).putInt(1).putLong(segmentLength);
    header.putInt(ops.size());
    out.writeBytes(header.array());
    ops.forEach(out::writeBytes);
    CRC32C crc = new CRC32C();
    crc.update(out.toByteArray());
    out.writeBytes(ByteBuffer.allocate(4).putInt((int) crc.getValue()).array());
    return out.toByteArray();
  }

  private static void write(Path file, byte[] bytes) throws IOException {
    if (bytes.length > 0) {
      Files.write(file, bytes);
    }
  }

  private static void delete(Path p) {
    try {
      Files.delete(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
