package io.vcorfu.logunit.internal;

import io.vcorfu.logunit.StorageOptions;

/**
 * The write side of a durable engine's active segment: where the next record goes, the frame each
 * record gets there, the FORCED records written between records, the segment's future index file,
 * and rolling to a new segment when a record may not fit (repeating every trim mark in the new
 * one).
 *
 * <p>Not thread-safe: guarded by the owning {@link StorageEngine}'s monitor, like the index it
 * updates.
 */
final class ActiveSegment {
  /** The length of a FORCED record's frame. */
  private static final int FORCED_FRAME = RecordCodec.frame(SegmentRecord.forced(0)).length;

  private final Object monitor;
  private final StorageOptions options;
  private final SegmentRefs segments;
  private final RecordIndex index;

  /** Set once by {@link #start}, before any record is written. */
  private SegmentWriter writer;

  private int segment;
  private long offset;
  private IndexFile indexFile = new IndexFile();
  private boolean writingMarks;

  /** The namespaces the active segment spelled out so far: its records name them by number. */
  private RecordCodec.Names names = new RecordCodec.Names();

  /** The last {@link SegmentWriter#forcedPosition()} written into the segments, or -1. */
  private long markedForced = -1;

  /**
   * @param monitor the engine whose monitor guards this and {@code index}
   */
  ActiveSegment(Object monitor, StorageOptions options, SegmentRefs segments, RecordIndex index) {
    this.monitor = monitor;
    this.options = options;
    this.segments = segments;
    this.index = index;
  }

  /**
   * Continues segment {@code segment}, which recovery found {@code length} bytes long with the
   * namespaces {@code names} spelled out, through {@code writer}.
   */
  void start(int segment, long length, RecordCodec.Names names, SegmentWriter writer) {
    this.segment = segment;
    this.offset = length;
    this.names = names;
    this.writer = writer;
  }

  /** The segment being written. */
  int segment() {
    return segment;
  }

  /** Bytes of the active segment written or reserved so far. */
  long offset() {
    return offset;
  }

  /** Where the next record goes, as one number that grows with every record written. */
  long position() {
    return ((long) segment << 40) | offset;
  }

  /** True while a roll repeats the trim marks in the new segment. */
  boolean writingMarks() {
    return writingMarks;
  }

  /** Collects {@code op}, replayed by recovery, for the active segment's future index file. */
  void collect(SegmentRecord op) {
    indexFile.add(op);
  }

  /**
   * Writes {@code op} to the active segment (rolling first when it may not fit), preceded by a
   * FORCED record when one is due, and collects it for the segment's index file; with {@code
   * locatePayload}, notes in {@code op} where its payload lands. The caller applies it to the
   * index.
   */
  void append(SegmentRecord op, boolean locatePayload) {
    byte[] frame = encode(op);
    long at = reserve(frame.length);
    byte[] marker = forcedMarker();
    if (marker != null) {
      at += marker.length;
      offset += marker.length;
    }
    if (locatePayload) {
      op.payloadPos = at + RecordCodec.payloadOffsetInFrame(op, frame);
    }
    markWritten(op, writer.append(marker, frame));
    indexFile.add(op);
  }

  /**
   * A FORCED record to write just before the next record of the active segment, when the writer
   * forced more of that segment since the last one; null otherwise. It goes in the same writer item
   * as the record, so it never costs a force of its own, and there is at most one per force.
   */
  private byte[] forcedMarker() {
    long forced = writer.forcedPosition();
    if (SegmentPosition.segment(forced) != segment
        || SegmentPosition.offset(forced) == 0
        || forced <= markedForced) {
      return null;
    }
    markedForced = forced;
    return RecordCodec.frame(SegmentRecord.forced(SegmentPosition.offset(forced)));
  }

  /** Records that the namespaces {@code op} touches were last written by record {@code seq}. */
  private void markWritten(SegmentRecord op, long seq) {
    for (int i = 0; i + 2 < op.keys.length; i += 3) {
      index.namespace(op.keys[i], op.keys[i + 1]).lastSeq = seq;
    }
  }

  /**
   * The frame of {@code op} for the active segment, rolling first when it may not fit: a frame
   * names namespaces the way the segment it lands in does, so it must not roll after encoding.
   */
  private byte[] encode(SegmentRecord op) {
    int most = RecordCodec.maxFrameLength(op) + FORCED_FRAME;
    if (!writingMarks && offset > 0 && offset + most > options.segmentSize()) {
      roll();
    }
    return RecordCodec.frame(op, names);
  }

  /** Reserves {@code length} bytes in the active segment ({@link #encode} rolled if needed). */
  private long reserve(int length) {
    long at = offset;
    offset += length;
    return at;
  }

  /** Seals the active segment (deleting it when nothing in it is live) and starts the next. */
  void roll() {
    int sealed = segment;
    writer.roll(sealed, offset, indexFile.finish(sealed, offset), sealed + 1);
    segments.sealed(sealed, offset);
    segment = sealed + 1;
    offset = 0;
    indexFile = new IndexFile();
    names = new RecordCodec.Names();
    if (!segments.live(sealed)) {
      segments.deleted(sealed);
      writer.delete(sealed);
    }
    // Trim marks and pins must outlive the segments that recorded them: repeat them in every new
    // segment (a pin set emptied too, so that no older record of it can come back).
    writingMarks = true;
    try {
      for (NamespaceIndex n : index.all()) {
        if (n.trimMark > 0 || n.pins != null) {
          SegmentRecord marks = SegmentRecord.marksOf(n, index.maxGlobal());
          append(marks, false);
          assert Thread.holdsLock(monitor) : "the index is changed only under the engine's monitor";
          index.apply(marks, segment);
        }
      }
    } finally {
      writingMarks = false;
    }
  }
}
