package io.vcorfu.protocol;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The SHA-256 digests that make a stream's history tamper-evident.
 *
 * <p>Every replica computes, when it stores an entry, the entry's <em>digest</em>: SHA-256 of the
 * entry's serialized bytes without the writer's epoch (a repairer re-driving an entry stamps its
 * own epoch, and every replica of one entry must agree on its digest). Every decided hole has the
 * one digest {@link #HOLE}. A stream's positions are then chained: the <em>head</em> at position
 * {@code p} is {@code SHA-256(head(p - 1) || p || digest(p))}, from the stream's {@link #seed} at
 * position -1. A head is thus a commitment to every entry of the stream up to it: a client that
 * kept the head at {@code p} (pinned it) can later have any replica prove that positions 0 to
 * {@code p} are as they were, and altering any byte of any of them, or the digests stored beside
 * them, changes the head. Replicas that trimmed a stream keep the head just below the trim mark
 * (the anchor), so heads stay comparable after trims.
 *
 * <p>Thread-safe; every method allocates its own digest state.
 */
public final class ChainDigests {
  /** Bytes of a digest. */
  public static final int LENGTH = 32;

  private static final int EPOCH_TAG = (5 << 3); // LogEntryMsg.epoch, varint

  /** The digest of every decided hole, whatever its bytes (a fill, a lost entry). */
  public static final byte[] HOLE = sha256("vcorfu hole".getBytes(StandardCharsets.US_ASCII));

  private static final ThreadLocal<MessageDigest> SHA =
      ThreadLocal.withInitial(ChainDigests::newSha);

  private ChainDigests() {}

  /**
   * The digest of a DATA entry serialized as {@code entry} (a {@code LogEntryMsg}): SHA-256 of its
   * bytes with the top-level epoch field left out. Bytes that do not parse as a message are
   * digested whole (the digest then still changes with any altered byte).
   */
  public static byte[] ofEntry(byte[] entry) {
    MessageDigest sha = sha();
    int epochAt = -1;
    int epochEnd = -1;
    int i = 0;
    try {
      while (i < entry.length) {
        int start = i;
        long tag = 0;
        int shift = 0;
        byte b;
        do {
          b = entry[i++];
          tag |= (long) (b & 0x7F) << shift;
          shift += 7;
        } while (b < 0 && shift < 64);
        switch ((int) (tag & 7)) {
          case 0 -> {
            while (entry[i++] < 0) {
              // a varint's continuation bytes
            }
          }
          case 1 -> i += 8;
          case 5 -> i += 4;
          case 2 -> {
            long len = 0;
            shift = 0;
            do {
              b = entry[i++];
              len |= (long) (b & 0x7F) << shift;
              shift += 7;
            } while (b < 0 && shift < 64);
            if (len < 0 || len > entry.length - i) {
              throw new IndexOutOfBoundsException();
            }
            i += (int) len;
          }
          default -> throw new IndexOutOfBoundsException();
        }
        if (tag == EPOCH_TAG && epochAt < 0) {
          epochAt = start;
          epochEnd = i;
        }
      }
      if (i != entry.length) {
        throw new IndexOutOfBoundsException();
      }
    } catch (IndexOutOfBoundsException e) {
      epochAt = -1;
    }
    if (epochAt < 0) {
      sha.update(entry);
    } else {
      sha.update(entry, 0, epochAt);
      sha.update(entry, epochEnd, entry.length - epochEnd);
    }
    return sha.digest();
  }

  /** The head of {@code stream} below its first entry (position -1). */
  public static byte[] seed(StreamId stream) {
    MessageDigest sha = sha();
    sha.update("vcorfu stream chain".getBytes(StandardCharsets.US_ASCII));
    sha.update(longBytes(stream.msb()));
    sha.update(longBytes(stream.lsb()));
    return sha.digest();
  }

  /** The head at {@code position} after {@code previous}, the head at {@code position - 1}. */
  public static byte[] link(byte[] previous, long position, byte[] digest) {
    return link(previous, position, digest, 0);
  }

  /** {@link #link} reading the digest from {@code digests} at {@code offset}. */
  public static byte[] link(byte[] previous, long position, byte[] digests, int offset) {
    MessageDigest sha = sha();
    sha.update(previous);
    sha.update(longBytes(position));
    sha.update(digests, offset, LENGTH);
    return sha.digest();
  }

  /** Lower-case hex of {@code digest}. */
  public static String hex(byte[] digest) {
    return HexFormat.of().formatHex(digest);
  }

  /**
   * The digest written in hex by {@link #hex}; IllegalArgumentException naming what is wrong when
   * {@code hex} is not 64 hex digits.
   */
  public static byte[] parseHex(String hex) {
    if (hex == null || hex.length() != LENGTH * 2) {
      throw new IllegalArgumentException(
          "a chain hash is 64 hex digits, not " + (hex == null ? 0 : hex.length()) + " characters");
    }
    try {
      return HexFormat.of().parseHex(hex);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("a chain hash is 64 hex digits: " + e.getMessage());
    }
  }

  /** True when {@code a} and {@code b} are the same digest. */
  public static boolean same(byte[] a, byte[] b) {
    return a != null && b != null && MessageDigest.isEqual(a, b);
  }

  private static byte[] sha256(byte[] bytes) {
    return newSha().digest(bytes);
  }

  private static MessageDigest sha() {
    MessageDigest sha = SHA.get();
    sha.reset();
    return sha;
  }

  private static MessageDigest newSha() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JVM lacks SHA-256, which every Java 17 JVM has", e);
    }
  }

  private static byte[] longBytes(long v) {
    byte[] b = new byte[8];
    for (int i = 7; i >= 0; i--) {
      b[i] = (byte) v;
      v >>>= 8;
    }
    return b;
  }
}
