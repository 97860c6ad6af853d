package io.vcorfu.logunit.internal;

import io.vcorfu.logunit.CorruptSegmentException;
import io.vcorfu.logunit.DirectorySync;
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
 * the last (active) segment is always scanned.
 *
 * <p>Torn tail or corruption: a power loss can leave the part of the last segment written after its
 * last force damaged in any pattern (its pages reach the disk in any order), but nothing before
 * that force. The segment records how far it was forced in {@link SegmentRecord#FORCED} records,
 * each true once readable. So a damaged record in the last segment at or after the highest forced
 * position any readable FORCED record claims is a torn tail: the segment is truncated there,
 * dropping whatever follows (none of it was acknowledged under {@link
 * io.vcorfu.logunit.FsyncPolicy#ALWAYS}, since acknowledging waits for a force that would have
 * moved the claim past it). Damage before that position, or anywhere in a sealed segment, is
 * corruption and stops start-up naming the file and offset.
 *
 * <p>Zeros after the last record of the last segment are the space its writer zeroed ahead of its
 * writes ({@link Preallocation}): they are cut without being called a torn write, and only the
 * damaged bytes before them count in {@link RecoveryStats#tornBytesTruncated()}.
 *
 * <p>Before returning, the active segment and the directory are forced, so what recovery kept is
 * durable before anything is served from it and the writer may treat it as forced.
 */
final class SegmentRecovery {
  private static final Logger LOG = LoggerFactory.getLogger(SegmentRecovery.class);
  private static final Pattern SEGMENT = Pattern.compile("segment-(\\d{6,})\\.log");

  /**
   * @param activeNames the namespaces the active segment spelled out so far (its records name them
   *     by number from then on)
   */
  record Result(
      int activeSegment,
      long activeLength,
      Map<Integer, FileChannel> channels,
      RecoveryStats stats,
      RecordCodec.Names activeNames) {}

  /** The namespaces of the last segment scanned. */
  private RecordCodec.Names scannedNames = new RecordCodec.Names();

  /** Zero bytes at the end of the last segment scanned, after its valid records. */
  private long zeroTail;

  /** The length of each segment file found on open. */
  private final Map<Integer, Long> lengths = new HashMap<>();

  private final Path dir;
  private final DirectorySync directorySync;
  private final StorageEngine engine;

  SegmentRecovery(Path dir, DirectorySync directorySync, StorageEngine engine) {
    this.dir = dir;
    this.directorySync = directorySync;
    this.engine = engine;
  }

  Result recover() throws IOException {
    List<Path> createdDirs = new ArrayList<>();
    for (Path p = dir.toAbsolutePath(); p != null && !Files.exists(p); p = p.getParent()) {
      createdDirs.add(p);
    }
    Files.createDirectories(dir);
    // Every directory created here gets its entry forced in its parent, top down.
    for (int i = createdDirs.size() - 1; i >= 0; i--) {
      Path parent = createdDirs.get(i).getParent();
      if (parent != null) {
        directorySync.force(parent);
      }
    }
    List<Integer> ids = segmentIds();
    for (int id : ids) {
      lengths.put(id, Files.size(SegmentFiles.segmentPath(dir, id)));
    }
    int fromIndex = 0;
    int scanned = 0;
    long torn = 0;
    Map<Integer, FileChannel> channels = new HashMap<>();
    try {
      for (int i = 0; i < ids.size() - 1; i++) {
        int id = ids.get(i);
        Path file = SegmentFiles.segmentPath(dir, id);
        long size = Files.size(file);
        engine.sealedSegment(id, size);
        if (replayIndex(id, size)) {
          fromIndex++;
        } else {
          scan(id, file, false);
          scanned++;
        }
      }
      int active = ids.isEmpty() ? 1 : ids.get(ids.size() - 1);
      Path activeFile = SegmentFiles.segmentPath(dir, active);
      long length = 0;
      long cut = 0;
      RecordCodec.Names activeNames = new RecordCodec.Names();
      if (!ids.isEmpty()) {
        length = scan(active, activeFile, true);
        activeNames = scannedNames;
        scanned++;
        cut = Files.size(activeFile) - length;
        torn = cut - zeroTail;
      }
      boolean created = ids.isEmpty();
      FileChannel ch =
          FileChannel.open(
              activeFile,
              StandardOpenOption.CREATE,
              StandardOpenOption.READ,
              StandardOpenOption.WRITE);
      channels.put(active, ch);
      if (torn > 0) {
        LOG.warn(
            "Truncated {} bytes of an interrupted write at the end of {} (offset {})",
            torn,
            activeFile,
            length);
      }
      if (cut > 0) {
        ch.truncate(length);
      }
      // A process crash leaves unforced writes in the page cache, readable now but not durable.
      ch.force(true);
      ch.position(length);
      List<Integer> sealed = ids.isEmpty() ? List.of() : ids.subList(0, ids.size() - 1);
      List<Integer> dead = engine.deadSegments(sealed);
      for (int id : sealed) {
        if (dead.contains(id)) {
          engine.deletedSegment(id);
          Files.deleteIfExists(SegmentFiles.indexPath(dir, id));
          Files.deleteIfExists(SegmentFiles.segmentPath(dir, id));
        } else {
          channels.put(
              id, FileChannel.open(SegmentFiles.segmentPath(dir, id), StandardOpenOption.READ));
        }
      }
      if (!dead.isEmpty()) {
        LOG.info("Deleted {} segments of {} that hold nothing live", dead.size(), dir);
      }
      if (created || !dead.isEmpty()) {
        directorySync.force(dir);
      }
      LOG.info(
          "Recovered {}: {} segments from index files, {} scanned, active segment {}",
          dir,
          fromIndex,
          scanned,
          active);
      return new Result(
          active,
          length,
          channels,
          new RecoveryStats(fromIndex, scanned, torn, dead.size()),
          activeNames);
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
      files.forEach(
          p -> {
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
    Path idx = SegmentFiles.indexPath(dir, id);
    if (!Files.exists(idx)) {
      LOG.info("Segment {} of {} has no index file; scanning it", id, dir);
      return false;
    }
    try {
      byte[] bytes = Files.readAllBytes(idx);
      List<SegmentRecord> ops = new ArrayList<>();
      if (IndexFile.replay(bytes, id, segmentLength, ops::add)
          && ops.stream().allMatch(op -> indexed(op) && namesStoredBytes(op, id, segmentLength))) {
        for (SegmentRecord op : ops) {
          engine.apply(op, id, false);
        }
        return true;
      }
    } catch (IOException e) {
      LOG.warn("Cannot read index file {}: {}", idx, e.getMessage());
    }
    LOG.warn("Index file {} is damaged or stale; scanning its segment instead", idx);
    return false;
  }

  /**
   * Scans one segment, applying every valid record; returns the length of its valid prefix. For the
   * last segment a damaged record is a torn tail (see the class comment) unless a readable FORCED
   * record, before or after it, says it lies in forced bytes.
   */
  private long scan(int id, Path file, boolean last) throws IOException {
    byte[] data = Files.readAllBytes(file);
    ByteBuffer b = ByteBuffer.wrap(data);
    long forced = 0;
    int at = 0;
    RecordCodec.Names names = new RecordCodec.Names();
    scannedNames = names;
    zeroTail = 0;
    while (at < data.length) {
      int frameLength = validFrameAt(data, at);
      if (frameLength < 0) {
        if (!last) {
          throw new CorruptSegmentException(
              file, at, "a sealed segment holds a truncated or damaged record");
        }
        After after = readableAfter(file, data, at);
        long claimed = Math.max(forced, after.forced());
        if (at < claimed) {
          throw new CorruptSegmentException(
              file,
              at,
              "a damaged record lies before offset "
                  + claimed
                  + ", up to which the segment was forced to disk, so this is not an "
                  + "interrupted write");
        }
        if (after.records() > 0) {
          LOG.warn(
              "{}: the damaged record at offset {} lies after the last forced position the segment"
                  + " records ({}); the {} readable records after it were written after that force"
                  + " and reached the disk out of order: dropping them with the torn tail",
              file,
              at,
              claimed,
              after.records());
        }
        int end = data.length;
        while (end > at && data[end - 1] == 0) {
          end--;
        }
        zeroTail = data.length - end;
        return at;
      }
      SegmentRecord op = decode(file, b, data.length, at, frameLength, names);
      if (!namesStoredBytes(op, id, at)) {
        throw new CorruptSegmentException(
            file, at, "a record names payload bytes that its segment files do not hold");
      }
      if (op.type == SegmentRecord.FORCED) {
        forced = Math.max(forced, op.forcedTo);
      } else {
        engine.apply(op, id, last);
      }
      at += frameLength;
    }
    return at;
  }

  /**
   * False when {@code op}, a record of segment {@code id} whose bytes before it end at {@code end},
   * is a SHARED record naming payload bytes that cannot be there: in a later segment, past {@code
   * end} in its own, or past the end of an earlier segment file. (An earlier segment that is gone
   * is no sign of damage: compaction deletes a segment after moving what it held.)
   */
  /**
   * True for the kinds of record an index file holds (those the index applies: entries, shared
   * entries, commits, marks); an index file holding any other (a FORCED record, an unknown kind) is
   * damaged, and its segment is scanned instead.
   */
  private static boolean indexed(SegmentRecord op) {
    return op.type == SegmentRecord.ENTRY
        || op.type == SegmentRecord.SHARED
        || op.type == SegmentRecord.COMMIT
        || op.type == SegmentRecord.MARKS;
  }

  private boolean namesStoredBytes(SegmentRecord op, int id, long end) {
    if (op.type != SegmentRecord.SHARED) {
      return true;
    }
    int segment = SegmentPosition.segment(op.payloadPos);
    long limit =
        segment == id ? end : segment < id ? lengths.getOrDefault(segment, Long.MAX_VALUE) : -1;
    return SegmentPosition.offset(op.payloadPos) <= limit - op.payloadLen;
  }

  private static SegmentRecord decode(
      Path file, ByteBuffer b, int dataLength, int at, int frameLength, RecordCodec.Names names)
      throws CorruptSegmentException {
    int bodyLen = frameLength - RecordCodec.FRAME_HEADER;
    b.limit(at + frameLength).position(at + RecordCodec.FRAME_HEADER);
    SegmentRecord op;
    try {
      op = RecordCodec.readBody(b, false, names, at + RecordCodec.FRAME_HEADER);
    } catch (RuntimeException e) {
      throw new CorruptSegmentException(
          file,
          at,
          "a record with a valid checksum cannot be " + "decoded (" + e.getMessage() + ")");
    }
    if (b.position() != at + RecordCodec.FRAME_HEADER + bodyLen) {
      throw new CorruptSegmentException(file, at, "a record is longer than its content");
    }
    if (op.type == SegmentRecord.FORCED && (op.forcedTo < 0 || op.forcedTo > at)) {
      throw new CorruptSegmentException(
          file,
          at,
          "a record claims the segment was forced up to "
              + "offset "
              + op.forcedTo
              + ", past the record itself");
    }
    b.limit(dataLength);
    return op;
  }

  /**
   * What is readable after the damaged record at {@code damaged}, walked record by record and
   * resynchronizing on the next valid record after each damaged stretch (something that only looks
   * like a record is skipped as garbage).
   *
   * @param forced the highest forced position a FORCED record there claims, 0 when none
   * @param records how many other records are readable there
   */
  private record After(long forced, int records) {}

  private static After readableAfter(Path file, byte[] data, int damaged) {
    ByteBuffer b = ByteBuffer.wrap(data);
    long forced = 0;
    int records = 0;
    int at = nextValidFrame(data, damaged + 1);
    while (at >= 0 && at < data.length) {
      int frameLength = validFrameAt(data, at);
      SegmentRecord op = null;
      if (frameLength > 0) {
        try {
          // Namespaces spelled out before the damage are not known here: a record naming one
          // by number reads as garbage, which only lowers the count of readable records.
          op = decode(file, b, data.length, at, frameLength, new RecordCodec.Names());
        } catch (CorruptSegmentException e) {
          b.limit(data.length);
        }
      }
      if (op == null) {
        at = nextValidFrame(data, at + 1);
        continue;
      }
      if (op.type == SegmentRecord.FORCED) {
        forced = Math.max(forced, op.forcedTo);
      } else {
        records++;
      }
      at += frameLength;
    }
    return new After(forced, records);
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
