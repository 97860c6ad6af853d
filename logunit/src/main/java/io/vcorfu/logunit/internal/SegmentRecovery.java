package io.vcorfu.logunit.internal;

import io.vcorfu.logunit.CorruptSegmentException;
import io.vcorfu.logunit.RecoveryStats;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebuilds the engine's index from a data directory on open. Sealed segments are restored from
 * their index files when those are intact and match the segment's length, and scanned otherwise;
 * the last (active) segment is always scanned. Only the end of the last segment may be damaged (an
 * interrupted write): it is truncated. Damage anywhere else stops start-up.
 */
final class SegmentRecovery {
  private static final Logger log = LoggerFactory.getLogger(SegmentRecovery.class);
  private static final Pattern SEGMENT = Pattern.compile("segment-(\\d{6,})\\.log");

  record Result(int activeSegment, long activeLength, Map<Integer, FileChannel> channels,
      RecoveryStats stats) {}

  private final Path dir;
  private final StorageEngine engine;

  SegmentRecovery(Path dir, StorageEngine engine) {
    this.dir = dir;
    this.engine = engine;
  }

  Result recover() throws IOException {
    Files.createDirectories(dir);
    List<Integer> ids = segmentIds();
    int fromIndex = 0;
    int scanned = 0;
    long torn = 0;
    Map<Integer, FileChannel> channels = new HashMap<>();
    try {
      for (int i = 0; i < ids.size() - 1; i++) {
        int id = ids.get(i);
        Path file = SegmentWriter.segmentPath(dir, id);
        long size = Files.size(file);
        if (replayIndex(id, size)) {
          fromIndex++;
        } else {
          scan(id, file, false);
          scanned++;
        }
      }
      int active = ids.isEmpty() ? 1 : ids.get(ids.size() - 1);
      Path activeFile = SegmentWriter.segmentPath(dir, active);
      long length = 0;
      if (!ids.isEmpty()) {
        length = scan(active, activeFile, true);
        scanned++;
        torn = Files.size(activeFile) - length;
      }
      FileChannel ch = FileChannel.open(activeFile, StandardOpenOption.CREATE,
          StandardOpenOption.READ, StandardOpenOption.WRITE);
      if (torn > 0) {
        log.warn("Truncated {} bytes of an interrupted write at the end of {} (offset {})",
            torn, activeFile, length);
        ch.truncate(length);
        ch.force(true);
      }
      ch.position(length);
      channels.put(active, ch);
      List<Integer> sealed = ids.isEmpty() ? List.of() : ids.subList(0, ids.size() - 1);
      List<Integer> dead = engine.deadSegments(sealed);
      for (int id : sealed) {
        if (dead.contains(id)) {
          Files.deleteIfExists(SegmentWriter.indexPath(dir, id));
          Files.deleteIfExists(SegmentWriter.segmentPath(dir, id));
        } else {
          channels.put(id, FileChannel.open(SegmentWriter.segmentPath(dir, id),
              StandardOpenOption.READ));
        }
      }
      if (!dead.isEmpty()) {
        log.info("Deleted {} segments of {} that hold nothing live", dead.size(), dir);
      }
      log.info("Recovered {}: {} segments from index files, {} scanned, active segment {}",
          dir, fromIndex, scanned, active);
      return new Result(active, length, channels,
          new RecoveryStats(fromIndex, scanned, torn, dead.size()));
    } catch (IOException | RuntimeException e) {
      for (FileChannel ch : channels.values()) {
        ch.close();
      }
      throw e;
    }
  }

  private List<Integer> segmentIds() throws IOException {
    List<Integer> ids = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      files.forEach(p -> {
        Matcher m = SEGMENT.matcher(p.getFileName().toString());
        if (m.matches()) {
          ids.add(Integer.parseInt(m.group(1)));
        }
      });
    }
    ids.sort(null);
    return ids;
  }

  private boolean replayIndex(int id, long segmentLength) {
    Path idx = SegmentWriter.indexPath(dir, id);
    if (!Files.exists(idx)) {
      log.info("Segment {} of {} has no index file; scanning it", id, dir);
      return false;
    }
    try {
      byte[] bytes = Files.readAllBytes(idx);
      if (IndexFile.replay(bytes, id, segmentLength, op -> engine.apply(op, id, false))) {
        return true;
      }
    } catch (IOException e) {
      log.warn("Cannot read index file {}: {}", idx, e.getMessage());
    }
    log.warn("Index file {} is damaged or stale; scanning its segment instead", idx);
    return false;
  }

  /**
   * Scans one segment, applying every valid record; returns the length of its valid prefix. For
   * the last segment a damaged end is tolerated when nothing valid follows it.
   */
  private long scan(int id, Path file, boolean last) throws IOException {
    byte[] data = Files.readAllBytes(file);
    ByteBuffer b = ByteBuffer.wrap(data);
    int at = 0;
    while (at < data.length) {
      int frameLength = validFrameAt(data, at);
      if (frameLength < 0) {
        if (!last) {
          throw new CorruptSegmentException(file, at,
              "a sealed segment holds a truncated or damaged record");
        }
        int next = nextValidFrame(data, at + 1);
        if (next >= 0) {
          throw new CorruptSegmentException(file, at, "a damaged record is followed by valid "
              + "records (first at offset " + next + "), so this is not an interrupted write");
        }
        return at;
      }
      int bodyLen = frameLength - RecordCodec.FRAME_HEADER;
      b.limit(at + frameLength).position(at + RecordCodec.FRAME_HEADER);
      Op op;
      try {
        op = RecordCodec.readBody(b, false, at + RecordCodec.FRAME_HEADER);
      } catch (RuntimeException e) {
        throw new CorruptSegmentException(file, at, "a record with a valid checksum cannot be "
            + "decoded (" + e.getMessage() + ")");
      }
      if (b.position() != at + RecordCodec.FRAME_HEADER + bodyLen) {
        throw new CorruptSegmentException(file, at, "a record is longer than its content");
      }
      b.limit(data.length);
      engine.apply(op, id, last);
      at += frameLength;
    }
    return at;
  }

  /** The whole length of a valid frame at {@code at}, or -1. */
  private static int validFrameAt(byte[] data, int at) {
    if (data.length - at < RecordCodec.FRAME_HEADER) {
      return -1;
    }
    ByteBuffer b = ByteBuffer.wrap(data);
    if (b.getInt(at) != RecordCodec.MAGIC) {
      return -1;
    }
    int bodyLen = b.getInt(at + 4);
    if (bodyLen < 1 || bodyLen > data.length - at - RecordCodec.FRAME_HEADER) {
      return -1;
    }
    if (RecordCodec.crc(data, at + 4, bodyLen) != b.getInt(at + 8)) {
      return -1;
    }
    return RecordCodec.FRAME_HEADER + bodyLen;
  }

  private static int nextValidFrame(byte[] data, int from) {
    ByteBuffer b = ByteBuffer.wrap(data);
    for (int i = from; i + RecordCodec.FRAME_HEADER <= data.length; i++) {
      if (b.getInt(i) == RecordCodec.MAGIC && validFrameAt(data, i) > 0) {
        return i;
      }
    }
    return -1;
  }
}
