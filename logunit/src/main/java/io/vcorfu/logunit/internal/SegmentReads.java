package io.vcorfu.logunit.internal;

import io.vcorfu.protocol.ServerErrorException;
import io.vcorfu.protocol.StreamId;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.util.function.Supplier;

/**
 * Reads the payload bytes of records found in a durable engine's index from their segment files,
 * outside the engine's monitor, following a slot to where compaction moved it.
 */
final class SegmentReads {
  private final StorageEngine engine;

  /** The engine's segment writer, which holds the segments' channels; null in memory mode. */
  private final Supplier<SegmentWriter> writer;

  SegmentReads(StorageEngine engine, Supplier<SegmentWriter> writer) {
    this.engine = engine;
    this.writer = writer;
  }

  /** See {@link StorageEngine#load(StreamId, IndexedRecord)}. */
  byte[] load(StreamId ns, IndexedRecord s) {
    IndexedRecord at = s;
    while (true) {
      byte[] bytes = load(at);
      if (bytes != null) {
        return bytes;
      }
      IndexedRecord now = engine.lookup(ns, s.address());
      if (now == null
          || now.pos() == at.pos()
          || now.global() != s.global()
          || now.hash() != s.hash()
          || now.hole() != s.hole()) {
        return null;
      }
      // Moved by compaction: the same bytes at a new position, durable before the old was deleted.
      at = now;
    }
  }

  /** See {@link StorageEngine#load(IndexedRecord)}. */
  byte[] load(IndexedRecord s) {
    if (s.payload() != null) {
      return s.payload();
    }
    SegmentWriter w = writer.get();
    FileChannel ch = w == null ? null : w.channel(SegmentPosition.segment(s.pos()));
    if (ch == null) {
      return null;
    }
    ByteBuffer b = ByteBuffer.allocate(s.len());
    long at = SegmentPosition.offset(s.pos());
    try {
      while (b.hasRemaining()) {
        int n = ch.read(b, at + b.position());
        if (n < 0) {
          throw new ServerErrorException(
              "A segment file ended before a record it holds; "
                  + "the data directory was changed behind the replica's back.");
        }
      }
    } catch (ClosedChannelException e) {
      return null;
    } catch (IOException e) {
      throw new ServerErrorException(
          "Reading a record from its segment failed: " + e.getMessage(), e);
    }
    return b.array();
  }
}
