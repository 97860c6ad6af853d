package io.vcorfu.collections;

import io.vcorfu.client.DirectoryEntry;
import io.vcorfu.collections.internal.BTreeMeta;
import io.vcorfu.collections.internal.BTreeNode;
import io.vcorfu.collections.internal.BTreeSession;
import io.vcorfu.collections.internal.BTreeVerifier;
import io.vcorfu.collections.internal.ForwardingNavigableMap;
import io.vcorfu.collections.internal.KeyRange;
import io.vcorfu.collections.internal.RangeNavigableMap;
import io.vcorfu.collections.internal.RangeStore;
import io.vcorfu.collections.internal.TreeInfo;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.ReadOnlyViewException;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.Version;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * A sorted map built as a B+-tree of replicated objects (composable SMR): every node is an SMR
 * object in its own stream, and a root object in the stream {@code StreamId.of(name + "/btree")}
 * names the root node and holds the fanout. Usable as a {@link java.util.NavigableMap}.
 *
 * <p><b>Opening.</b> {@link #open(VCorfuRuntime, String, int)} creates the tree with the given
 * fanout on first use (every client then reads the stored fanout; opening an existing tree with a
 * different fanout is refused); {@link #open(VCorfuRuntime, String)} opens it with whatever fanout
 * it has (creating it with {@value #DEFAULT_FANOUT}); {@link #openAsOf} gives a read-only snapshot
 * of the whole tree as of one global address.
 *
 * <p><b>Structure.</b> Leaves hold between {@code (fanout + 1) / 2} and {@code fanout} sorted
 * entries; internal nodes hold that many children, named by stream id (dynamic references), plus
 * separator keys. A child that changes or splits keeps its stream, so its parent is rewritten only
 * when its own children change (a split adds one, a merge drops one); the root object is rewritten
 * only when the root changes. New nodes get fresh random stream ids under the tree's name. Depth is
 * O(log n / log(fanout / 2)).
 *
 * <p><b>Operations.</b> Each call runs as one transaction of the calling thread's runtime (joining
 * the caller's transaction if one is open), so all of its reads see one snapshot: get, put and
 * remove read one root-to-leaf path, O(log n) nodes; navigation (floor, ceiling, first, ...) reads
 * one or two paths; iteration, {@code size()} and range scans read every node overlapping the range
 * and materialize the range's entries from one snapshot (O(r) memory for r entries; the whole map
 * for {@code size()} of the whole map). Lookups and in-place updates of existing keys conflict per
 * key; inserting a new key or removing one reads the whole leaf (it may split or merge), so it
 * conflicts with concurrent writes to that leaf; a split or merge conflicts with everything that
 * passed through the nodes it rewrites. Aborted transactions are retried by the runtime.
 *
 * <p><b>Semantics</b> follow {@link java.util.TreeMap} with natural ordering, as documented for
 * {@link SMRRangeMap}: null keys and values are refused with {@link NullPointerException}, views
 * are live and write through, iterators walk one snapshot. Keys and values must be encodable by the
 * runtime's serializer.
 *
 * <p>Thread-safe.
 */
public final class CSMRBTree<K extends Comparable<? super K>, V>
    extends ForwardingNavigableMap<K, V> {
  public static final int DEFAULT_FANOUT = 32;
  public static final int MIN_FANOUT = 3;
  public static final int MAX_FANOUT = 4096;

  /** What {@link #checkStructure()} found: levels (1 for a lone leaf), nodes and entries. */
  public record Shape(int depth, int nodes, long entries) {}

  private final VCorfuRuntime rt;
  private final String name;
  private final Version asOf;
  private final BTreeMeta meta;
  private final int fanout;
  private final Map<StreamId, BTreeNode> opened = new ConcurrentHashMap<>();
  private final BTreeSession.Nodes nodes;
  private final RangeNavigableMap<K, V> all;

  private CSMRBTree(VCorfuRuntime rt, String name, Version asOf, BTreeMeta meta, int fanout) {
    this.rt = rt;
    this.name = name;
    this.asOf = asOf;
    this.meta = meta;
    this.fanout = fanout;
    this.nodes =
        new BTreeSession.Nodes() {
          @Override
          public BTreeNode open(StreamId id) {
            return opened.computeIfAbsent(id, CSMRBTree.this::openNode);
          }

          @Override
          public StreamId newId() {
            return StreamId.of(name + "/btree/node/" + UUID.randomUUID());
          }
        };
    this.all = RangeNavigableMap.of(new Store());
  }

  /** The stream of the root object of the tree called {@code name}. */
  public static StreamId rootObjectStream(String name) {
    return StreamId.of(name + "/btree");
  }

  /**
   * Opens the tree called {@code name}, creating it with {@value #DEFAULT_FANOUT} if it does not
   * exist.
   */
  public static <K extends Comparable<? super K>, V> CSMRBTree<K, V> open(
      VCorfuRuntime rt, String name) {
    return openLive(rt, name, 0);
  }

  /**
   * Opens the tree called {@code name}, creating it with {@code fanout} (at most {@code fanout}
   * entries per leaf and children per internal node) if it does not exist.
   *
   * @throws IllegalArgumentException if {@code fanout} is outside {@value #MIN_FANOUT}..{@value
   *     #MAX_FANOUT}, or the tree exists with another fanout
   */
  public static <K extends Comparable<? super K>, V> CSMRBTree<K, V> open(
      VCorfuRuntime rt, String name, int fanout) {
    if (fanout < MIN_FANOUT || fanout > MAX_FANOUT) {
      throw new IllegalArgumentException(
          "a B-tree's fanout must lie between "
              + MIN_FANOUT
              + " and "
              + MAX_FANOUT
              + ", not "
              + fanout);
    }
    return openLive(rt, name, fanout);
  }

  private static <K extends Comparable<? super K>, V> CSMRBTree<K, V> openLive(
      VCorfuRuntime rt, String name, int wanted) {
    Objects.requireNonNull(rt, "rt");
    Objects.requireNonNull(name, "name");
    BTreeMeta meta =
        rt.objects()
            .builder(rootObjectStream(name), BTreeMeta.class)
            .describedAs(describe(name))
            .open();
    // Listed before anything is written in it: see io.vcorfu.client.NameDirectory.
    rt.registerName(
        DirectoryEntry.of(
            DirectoryEntry.OBJECT, name, CSMRBTree.class.getName(), rootObjectStream(name), 0));
    int chosen = wanted == 0 ? DEFAULT_FANOUT : wanted;
    TreeInfo info =
        rt.transaction(
            () -> {
              TreeInfo existing = meta.info();
              if (existing != null) {
                return existing;
              }
              StreamId root = StreamId.of(name + "/btree/node/" + UUID.randomUUID());
              rt.objects()
                  .builder(root, BTreeNode.class)
                  .describedAs(describe(name))
                  .open()
                  .replace(0, List.of(), List.of(), List.of());
              meta.create(root, chosen);
              return new TreeInfo(root, 0, chosen);
            });
    if (wanted != 0 && info.fanout() != wanted) {
      throw new IllegalArgumentException(
          "the B-tree "
              + name
              + " exists with fanout "
              + info.fanout()
              + ", so it cannot be opened with fanout "
              + wanted);
    }
    return new CSMRBTree<>(rt, name, Version.LIVE, meta, info.fanout());
  }

  /**
   * A read-only snapshot of the tree called {@code name} exactly as of global address {@code
   * address}: every node is read as of that address. Writes fail with {@link
   * ReadOnlyViewException}.
   *
   * @throws IllegalStateException if the tree did not exist at {@code address}
   */
  public static <K extends Comparable<? super K>, V> CSMRBTree<K, V> openAsOf(
      VCorfuRuntime rt, String name, long address) {
    Version version = Version.at(address);
    BTreeMeta meta =
        rt.objects().builder(rootObjectStream(name), BTreeMeta.class).asOf(version).open();
    TreeInfo info = meta.info();
    if (info == null) {
      throw new IllegalStateException(
          "the B-tree " + name + " did not exist at global address " + address);
    }
    return new CSMRBTree<>(rt, name, version, meta, info.fanout());
  }

  private BTreeNode openNode(StreamId id) {
    var b = rt.objects().builder(id, BTreeNode.class).describedAs(describe(name));
    return b.asOf(asOf).open();
  }

  public String name() {
    return name;
  }

  /** How messages name the tree called {@code name} and each of its node streams. */
  private static String describe(String name) {
    return "B-tree '" + name + "'";
  }

  /** The fanout stored when the tree was created. */
  public int fanout() {
    return fanout;
  }

  /**
   * Walks the whole tree (one snapshot) and checks its invariants: keys sorted, all leaves at one
   * depth, node sizes within the fanout bounds, no node reachable twice.
   *
   * @throws IllegalStateException naming the first violation found
   */
  public Shape checkStructure() {
    BTreeVerifier.Shape s = run(session -> new BTreeVerifier(session).check());
    return new Shape(s.depth(), s.nodes(), s.entries());
  }

  private <T> T run(Function<BTreeSession<K, V>, T> body) {
    if (!asOf.isLive()) {
      return body.apply(new BTreeSession<>(meta, nodes, fanout));
    }
    return rt.transaction(() -> body.apply(new BTreeSession<>(meta, nodes, fanout)));
  }

  private <T> T write(Function<BTreeSession<K, V>, T> body) {
    if (!asOf.isLive()) {
      throw new ReadOnlyViewException(
          "the B-tree "
              + name
              + " was opened as a snapshot as of global address "
              + asOf.address()
              + ", so it cannot change");
    }
    return run(body);
  }

  /** The tree's primitives, each one transaction. */
  private final class Store implements RangeStore<K, V> {
    @Override
    public V get(K key) {
      return run(s -> s.get(key));
    }

    @Override
    public boolean containsKey(K key) {
      return get(key) != null;
    }

    @Override
    public Map.Entry<K, V> first(KeyRange<K> range) {
      return run(s -> s.first(range));
    }

    @Override
    public Map.Entry<K, V> last(KeyRange<K> range) {
      return run(s -> s.last(range));
    }

    @Override
    public int count(KeyRange<K> range) {
      return run(s -> s.count(range));
    }

    @Override
    public Iterator<Map.Entry<K, V>> entries(KeyRange<K> range, boolean descending) {
      return run(s -> s.entries(range, descending)).iterator();
    }

    @Override
    public V put(K key, V value) {
      return write(s -> s.put(key, value));
    }

    @Override
    public V remove(K key) {
      return write(s -> s.remove(key));
    }

    @Override
    public Map.Entry<K, V> poll(KeyRange<K> range, boolean last) {
      return write(
          s -> {
            Map.Entry<K, V> e = last ? s.last(range) : s.first(range);
            if (e != null) {
              s.remove(e.getKey());
            }
            return e;
          });
    }

    @Override
    public void clear(KeyRange<K> range) {
      write(
          s -> {
            if (!range.hasLo() && !range.hasHi()) {
              s.clearAll();
            } else {
              for (Map.Entry<K, V> e : s.entries(range, false)) {
                s.remove(e.getKey());
              }
            }
            return null;
          });
    }
  }

  @Override
  protected java.util.NavigableMap<K, V> delegate() {
    return all;
  }
}
