package io.vcorfu.layout;

import io.vcorfu.protocol.Endpoint;
import java.util.Locale;

/**
 * A layout change was refused because it would leave a chain with no replica: the node to be
 * removed holds the only copy of that chain's entries. Nothing may be committed then; the cluster
 * waits for the node to come back.
 */
public final class ChainLostException extends LayoutException {
  /** Which kind of chain would be lost. */
  public enum ChainKind {
    LOG,
    STREAM;

    @Override
    public String toString() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final Endpoint node;
  private final ChainKind kind;
  private final int chainIndex;
  private final long segmentStart;

  public ChainLostException(Endpoint node, ChainKind kind, int chainIndex, long segmentStart) {
    super(
        "Removing "
            + node
            + " would leave "
            + kind
            + " chain "
            + chainIndex
            + " of the segment starting at "
            + segmentStart
            + " with no replica: "
            + node
            + " holds the only copy of its entries.");
    this.node = node;
    this.kind = kind;
    this.chainIndex = chainIndex;
    this.segmentStart = segmentStart;
  }

  /** The node whose removal was refused. */
  public Endpoint node() {
    return node;
  }

  /** Whether the lost chain is a log chain or a stream chain. */
  public ChainKind kind() {
    return kind;
  }

  /** The index of the lost chain among its segment's chains of its kind. */
  public int chainIndex() {
    return chainIndex;
  }

  /** The first global address of the segment holding the lost chain. */
  public long segmentStart() {
    return segmentStart;
  }
}
