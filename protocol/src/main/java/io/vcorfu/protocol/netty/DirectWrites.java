package io.vcorfu.protocol.netty;

import com.google.protobuf.MessageLite;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.unix.FileDescriptor;
import io.netty.channel.unix.UnixChannel;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * Writes a request's frame from the calling thread straight to its connection's socket when the
 * connection has nothing else waiting to be written, instead of handing it to the connection's I/O
 * thread. A caller that blocks on one request at a time (an application thread, a YCSB thread)
 * otherwise costs that thread a wakeup and a hop per request before anything is sent.
 *
 * <p>Invariant: the socket carries whole frames, in the order their writes were admitted. A direct
 * write runs only under the connection's write lock, and only when the channel's outbound buffer
 * holds no bytes (every byte the I/O thread was given is in the kernel) and no remainder of an
 * earlier direct write is with the I/O thread. The I/O thread makes its own writes under the same
 * lock ({@link #underLock}), so it never adds bytes while a direct write runs, and a direct write
 * never starts while it holds bytes it has not written. A frame the socket takes only in part
 * leaves its rest to the I/O thread, and direct writes stop until that rest is written. A frame the
 * socket takes none of, or that fails, was not written: the caller queues it as usual.
 *
 * <p>A connection with more than {@link #MAX_OUTSTANDING} calls waiting for answers writes through
 * its I/O thread, as does every connection with TLS or on a transport without a file descriptor
 * (NIO).
 */
final class DirectWrites {
  /**
   * With more calls than this waiting for answers on the connection (the caller's own included),
   * frames go through the I/O thread, which writes all that waits in one system call: callers
   * sharing a connection are woken in bursts (a group commit answers them together) and their next
   * requests batch there. Written directly whenever the socket was idle, 8 callers on one
   * connection cost 1.45-1.48 TCP segments an append against 1.01-1.03 and up to a fifth more
   * processor time, 50 callers 0.49 against 0.19 (benchmarks/HISTORY.md, "Direct writes").
   */
  static final int MAX_OUTSTANDING = 1;

  /** Larger frames go through the I/O thread (its batching amortizes their copies anyway). */
  static final int MAX_DIRECT_BYTES = 64 * 1024;

  private final ReentrantLock lock = new ReentrantLock();
  private final Channel channel;
  private final FileDescriptor fd;
  private final BooleanSupplier queued;
  private volatile boolean restPending;
  private final LongAdder whole = new LongAdder();
  private final LongAdder inPart = new LongAdder();

  private DirectWrites(Channel channel, FileDescriptor fd, BooleanSupplier queued) {
    this.channel = channel;
    this.fd = fd;
    this.queued = queued;
  }

  /** No direct writes: every frame of the connection goes through its I/O thread. */
  static DirectWrites none() {
    return new DirectWrites(null, null, () -> true);
  }

  /**
   * Direct writes for {@code channel}, or {@link #none} when its transport cannot take them. {@code
   * queued} says whether frames should go through the I/O thread now: requests wait for it (a
   * direct write never overtakes them; it takes them from the queue under {@link #underLock}), or
   * more than {@link #MAX_OUTSTANDING} calls wait for answers.
   */
  static DirectWrites forChannel(Channel channel, BooleanSupplier queued) {
    return channel instanceof UnixChannel unix
        ? new DirectWrites(channel, unix.fd(), queued)
        : none();
  }

  /** Runs the I/O thread's own writes: no direct write runs meanwhile. */
  void underLock(Runnable writes) {
    lock.lock();
    try {
      writes.run();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Writes {@code message}'s frame to the socket now, or returns false having written nothing (the
   * connection is busy or full, or the frame is large): the caller then queues it.
   */
  boolean tryWrite(MessageLite message) {
    if (fd == null || restPending || lock.isLocked() || !idle()) {
      return false;
    }
    int total = Framing.LENGTH_BYTES + message.getSerializedSize();
    if (total > MAX_DIRECT_BYTES) {
      return false;
    }
    ByteBuf frame;
    try {
      frame = ProtoEncoder.frame(channel.alloc(), message, total);
    } catch (IOException e) {
      return false;
    }
    boolean handedOver = false;
    if (!lock.tryLock()) {
      frame.release();
      return false;
    }
    try {
      if (restPending || !idle()) {
        return false;
      }
      int written =
          frame.hasMemoryAddress()
              ? fd.writeAddress(frame.memoryAddress(), frame.readerIndex(), frame.writerIndex())
              : writeNio(frame);
      if (written == total) {
        whole.increment();
        return true;
      }
      if (written == 0) {
        return false;
      }
      frame.skipBytes(written);
      inPart.increment();
      restPending = true;
      handedOver = true;
      channel.eventLoop().execute(() -> writeRest(frame));
      return true;
    } catch (IOException e) {
      // Nothing was written; the I/O thread meets the same error when it writes the queued frame.
      return false;
    } finally {
      lock.unlock();
      if (!handedOver) {
        frame.release();
      }
    }
  }

  /** Frames written whole from callers' threads (for tests). */
  long wholeWrites() {
    return whole.sum();
  }

  /**
   * Frames the socket took in part from a caller's thread, their rest written by the I/O thread.
   */
  long partialWrites() {
    return inPart.sum();
  }

  private int writeNio(ByteBuf frame) throws IOException {
    ByteBuffer nio = frame.internalNioBuffer(frame.readerIndex(), frame.readableBytes());
    return fd.write(nio, nio.position(), nio.limit());
  }

  private boolean idle() {
    ChannelOutboundBuffer out = channel.unsafe().outboundBuffer();
    return out != null
        && out.totalPendingWriteBytes() == 0
        && !queued.getAsBoolean()
        && channel.isActive();
  }

  /** On the I/O thread: the rest of a frame the socket took in part, before anything else. */
  private void writeRest(ByteBuf rest) {
    lock.lock();
    try {
      channel
          .writeAndFlush(rest)
          .addListener(
              (ChannelFutureListener)
                  f -> {
                    if (!f.isSuccess()) {
                      // A torn frame cannot be resumed: the connection ends, failing its calls.
                      f.channel().close();
                    }
                    restPending = false;
                  });
    } finally {
      lock.unlock();
    }
  }
}
