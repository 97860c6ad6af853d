package io.vcorfu.client.model;

import java.util.ArrayList;
import java.util.List;

/**
 * One small configuration of the write-path model: the nodes, the chains, the processes and the
 * fault budget, and the pure layout functions the model needs (the chains left after removals, an
 * entry's plan, its decider).
 *
 * <p>Chains: chain 0 is the log chain of every address; chains 1..S are stream chains, one stream
 * each, in plan order (the last non-empty one decides). Every entry is written to every stream. A
 * <em>copy</em> is one (chain, node) slot of one address, numbered {@code chain * nodes + node}.
 * Removals only take nodes out of chains; a removal that would empty the log chain is refused (as
 * {@code LayoutChanges.withoutNode} refuses it), one that empties a stream chain is allowed (the
 * entry is then decided without that chain, as {@code ChainPlan} leaves an empty chain out).
 *
 * @param name shown in test names and reports
 * @param nodes number of nodes, at most 3
 * @param logChain the log chain, head first
 * @param streamChains the stream chains in plan order, each head first
 * @param addresses entries (global addresses 0..addresses-1), one writer each, at most 2
 * @param readers processes that each read {@code readsPerReader} times, any address, any chain
 * @param readsPerReader reads per reader
 * @param maxRemovals layout changes that remove a node
 * @param maxCrashes nodes that stop answering without being removed
 * @param trimStream 0: no trim; else the stream chain whose stream a trimmer settles and trims
 *     below address 0 + 1 (so address 0's slot of that stream is trimmed)
 * @param perCopy each copy's write (parallel rule), and each commit or abort-fill a decision sends
 *     once decided, is a message of its own, arriving in any order; else one message per node
 *     carries that node's copies (as issue 31's writer batches them), far fewer states
 * @param logTrim whether the log's prefix trim ({@code LogPrefixTrim}) runs and how (see {@link
 *     LogTrim}); where it does, writers may also die while they send or decide (a client gone, its
 *     token left to the readers, written in part or not at all)
 */
record ModelConfig(
    String name,
    int nodes,
    int[] logChain,
    int[][] streamChains,
    int addresses,
    int readers,
    int readsPerReader,
    int maxRemovals,
    int maxCrashes,
    int trimStream,
    boolean perCopy,
    LogTrim logTrim) {

  /**
   * The log's prefix trim in the model: it trims a log replica's lowest untrimmed address, once no
   * write or repair of that address is under way (what the real trim's retention window assumes;
   * the model has no time).
   */
  enum LogTrim {
    /** No trim of the log. */
    NONE,
    /**
     * The trim as it ran until 2026-12-08: whatever the slot holds, holes included, is trimmed
     * (kept to show what the rule below is for).
     */
    FORGETS_HOLES,
    /**
     * The trim as it runs ({@code LogPrefixTrim}, {@code KeptHoles}): it passes an address only
     * once the log decided it (its copies committed, data or hole), trims the entries and keeps the
     * holes, and a reader whose log walk meets the trim mark fills the stream's empty slot with a
     * hole ({@code StreamSlots}).
     */
    DECIDES_AND_KEEPS_HOLES
  }

  ModelConfig {
    if (nodes < 1 || nodes > 3 || addresses < 1 || addresses > 2 || streamChains.length > 2) {
      throw new IllegalArgumentException(
          "the model's encoding holds 3 nodes, 2 addresses, 2 streams");
    }
  }

  /** This configuration with a message per copy (see {@link #perCopy()}). */
  ModelConfig withMessagePerCopy() {
    return with(", a message per copy", true, logTrim);
  }

  /** This configuration with the log's prefix trim {@code trim} (see {@link #logTrim()}). */
  ModelConfig withLogTrim(LogTrim trim) {
    return with(
        trim == LogTrim.FORGETS_HOLES ? ", log trims" : ", log trims keeping decided holes",
        perCopy,
        trim);
  }

  /** True if the log's prefix trim runs. */
  boolean logTrims() {
    return logTrim != LogTrim.NONE;
  }

  /** This configuration named with {@code suffix}, with {@code perCopy} and {@code logTrim}. */
  private ModelConfig with(String suffix, boolean perCopy, LogTrim logTrim) {
    return new ModelConfig(
        name + suffix,
        nodes,
        logChain,
        streamChains,
        addresses,
        readers,
        readsPerReader,
        maxRemovals,
        maxCrashes,
        trimStream,
        perCopy,
        logTrim);
  }

  /** Chains, the log's included. */
  int chains() {
    return 1 + streamChains.length;
  }

  /** Copy numbers per address. */
  int copies() {
    return chains() * nodes;
  }

  /** Writers, then readers, then the trimmer (if any). */
  int processes() {
    return addresses + readers + (trimStream > 0 ? 1 : 0);
  }

  boolean isWriter(int p) {
    return p < addresses;
  }

  boolean isTrimmer(int p) {
    return trimStream > 0 && p == processes() - 1;
  }

  int copy(int chain, int node) {
    return chain * nodes + node;
  }

  int chainOf(int copy) {
    return copy / nodes;
  }

  int nodeOf(int copy) {
    return copy % nodes;
  }

  /** Chain {@code k} without the nodes of {@code removed} (a bit mask), head first. */
  int[] chain(int k, int removed) {
    int[] initial = k == 0 ? logChain : streamChains[k - 1];
    return java.util.Arrays.stream(initial).filter(n -> (removed & (1 << n)) == 0).toArray();
  }

  /** The deciding chain: the last non-empty stream chain, else the log chain. */
  int decidingChain(int removed) {
    for (int k = chains() - 1; k >= 1; k--) {
      if (chain(k, removed).length > 0) {
        return k;
      }
    }
    return 0;
  }

  /** True if a layout change may remove {@code node} from the layout of {@code removed}. */
  boolean canRemove(int node, int removed) {
    return (removed & (1 << node)) == 0 && chain(0, removed | (1 << node)).length > 0;
  }

  /** How two copies of one entry are ordered in its plan. */
  enum PlanOrder {
    /**
     * {@code ChainPlan} today: the log chain, the other stream chains, the deciding chain last,
     * each head first; the deciding chain's last replica decides.
     */
    SERIAL,
    /**
     * The withdrawn interleaved plan: copies at the same chain position go together (the log's
     * first, then the streams'), so a stream replica is written before the last log replica; the
     * deciding chain's last replica is still written last and decides.
     */
    INTERLEAVED
  }

  /** The copies of an entry under the layout of {@code removed}, in plan order; last decides. */
  int[] plan(int removed, PlanOrder order) {
    int deciding = decidingChain(removed);
    List<Integer> out = new ArrayList<>();
    if (order == PlanOrder.SERIAL) {
      for (int k = 0; k < chains(); k++) {
        if (k != deciding) {
          for (int n : chain(k, removed)) {
            out.add(copy(k, n));
          }
        }
      }
      for (int n : chain(deciding, removed)) {
        out.add(copy(deciding, n));
      }
    } else {
      int[] decidingNodes = chain(deciding, removed);
      for (int position = 0; position < nodes; position++) {
        for (int k = 0; k < chains(); k++) {
          int[] c = chain(k, removed);
          boolean decider = k == deciding && position == decidingNodes.length - 1;
          if (position < c.length && !decider) {
            out.add(copy(k, c[position]));
          }
        }
      }
      out.add(copy(deciding, decidingNodes[decidingNodes.length - 1]));
    }
    return out.stream().mapToInt(Integer::intValue).toArray();
  }

  String nodeName(int node) {
    return "n" + node;
  }

  String copyName(int copy) {
    int k = chainOf(copy);
    return (k == 0 ? "log" : "s" + k) + "@" + nodeName(nodeOf(copy));
  }

  String chainName(int k) {
    return k == 0 ? "log" : "stream s" + k;
  }

  /** The chains as text, for reports. */
  String describe() {
    StringBuilder b = new StringBuilder("log ").append(names(logChain));
    for (int k = 0; k < streamChains.length; k++) {
      b.append(", s").append(k + 1).append(' ').append(names(streamChains[k]));
    }
    return b.append(
            String.format(
                    "; %d address(es), %d reader(s) x %d read(s), %d removal(s), %d crash(es)%s",
                    addresses,
                    readers,
                    readsPerReader,
                    maxRemovals,
                    maxCrashes,
                    trimStream > 0 ? ", trim of s" + trimStream : "")
                + (perCopy ? ", a message per copy" : ", a message per node")
                + (logTrims() ? ", log trim " + logTrim : ""))
        .toString();
  }

  private String names(int[] chain) {
    List<String> out = new ArrayList<>();
    for (int n : chain) {
      out.add(nodeName(n));
    }
    return out.toString();
  }

  @Override
  public String toString() {
    return name;
  }
}
