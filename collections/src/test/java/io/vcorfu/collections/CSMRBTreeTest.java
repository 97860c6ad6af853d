package io.vcorfu.collections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.collections.internal.BTreeMeta;
import io.vcorfu.collections.internal.BTreeNode;
import io.vcorfu.collections.internal.NodeState;
import io.vcorfu.collections.internal.TreeInfo;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.ReadOnlyViewException;
import io.vcorfu.runtime.VCorfuRuntime;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

class CSMRBTreeTest {
  private static final Logger LOG = LoggerFactory.getLogger(CSMRBTreeTest.class);

  @RegisterExtension final Harness harness = new Harness();

  private VCorfuRuntime runtime() {
    return harness.defaultRuntime();
  }

  /** The most levels a tree of {@code n} entries may have with this fanout. */
  private static int maxDepth(long n, int fanout) {
    int min = (fanout + 1) / 2;
    int depth = 1;
    for (double leaves = Math.max(1, Math.ceil((double) n / min));
        leaves > 1;
        leaves = Math.ceil(leaves / min)) {
      depth++;
    }
    return depth;
  }

  private static TreeInfo info(VCorfuRuntime rt, String name) {
    return rt.objects().builder(CSMRBTree.rootObjectStream(name), BTreeMeta.class).open().info();
  }

  private static NodeState node(VCorfuRuntime rt, StreamId id) {
    return rt.objects().builder(id, BTreeNode.class).open().state();
  }

  @ParameterizedTest
  @CsvSource({"3, 17", "4, 2026", "7, 5"})
  void randomWorkloadsMatchTreeMapAndKeepTheTreeBalancedWithinFanoutBounds(int fanout, long seed) {
    LOG.info("seed {} fanout {}", seed, fanout);
    Random random = new Random(seed);
    VCorfuRuntime rt = runtime();
    CSMRBTree<Long, String> tree = CSMRBTree.open(rt, "random-" + fanout + "-" + seed, fanout);
    TreeMap<Long, String> model = new TreeMap<>();
    for (int phase = 0; phase < 2; phase++) {
      // Phase 0 mostly inserts (splits); phase 1 mostly removes (borrows and merges).
      int insertPercent = phase == 0 ? 75 : 25;
      for (int i = 0; i < 250; i++) {
        long k = random.nextInt(150);
        if (random.nextInt(100) < insertPercent) {
          assertThat(tree.put(k, "v" + i))
              .as("seed %d put(%d)", seed, k)
              .isEqualTo(model.put(k, "v" + i));
        } else {
          assertThat(tree.remove(k)).as("seed %d remove(%d)", seed, k).isEqualTo(model.remove(k));
        }
        if (i % 25 == 24) {
          CSMRBTree.Shape shape = tree.checkStructure();
          assertThat(shape.entries()).as("seed %d entries", seed).isEqualTo(model.size());
          assertThat(shape.depth())
              .as("seed %d depth of %d entries", seed, model.size())
              .isLessThanOrEqualTo(maxDepth(model.size(), fanout));
        }
      }
      assertThat(new ArrayList<>(tree.entrySet()))
          .as("seed %d phase %d", seed, phase)
          .containsExactlyElementsOf(model.entrySet());
    }
    VCorfuRuntime other = runtime();
    CSMRBTree<Long, String> seen = CSMRBTree.open(other, "random-" + fanout + "-" + seed);
    assertThat(seen).as("another runtime reads the same tree").isEqualTo(model);
    assertThat(seen.fanout()).isEqualTo(fanout);
  }

  @Test
  void theStructureCheckReportsABrokenTree() {
    VCorfuRuntime rt = runtime();
    CSMRBTree<Long, String> tree = CSMRBTree.open(rt, "broken", 4);
    for (long k = 0; k < 20; k++) {
      tree.put(k, "v");
    }
    assertThat(tree.checkStructure().depth()).isGreaterThan(1);
    TreeInfo info = info(rt, "broken");
    NodeState root = node(rt, info.root());
    StreamId firstChild = root.children().get(0);
    NodeState child = node(rt, firstChild);
    List<Object> reversed = new ArrayList<>(child.keys());
    java.util.Collections.reverse(reversed);
    rt.objects()
        .builder(firstChild, BTreeNode.class)
        .open()
        .replace(child.level(), reversed, child.values(), child.children());
    assertThatThrownBy(tree::checkStructure)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("ascending");
  }

  @Test
  void childrenKeepTheirStreamsSoParentsChangeOnlyWhenTheirChildrenDo() {
    VCorfuRuntime rt = runtime();
    CSMRBTree<Long, String> tree = CSMRBTree.open(rt, "dynamic", 4);
    for (long k = 0; k < 40; k += 2) {
      tree.put(k, "v");
    }
    TreeInfo before = info(rt, "dynamic");
    NodeState rootBefore = node(rt, before.root());
    List<StreamId> nodesBefore = leavesAndInner(rt, before.root(), before.rootLevel());
    assertThat(before.rootLevel()).isGreaterThanOrEqualTo(1);
    tree.put(0L, "updated");
    tree.put(2L, "updated");
    assertThat(node(rt, before.root()))
        .as("in-place updates never touch the root")
        .isEqualTo(rootBefore);
    for (long k = 1; k < 40; k += 2) {
      tree.put(k, "v");
    }
    TreeInfo after = info(rt, "dynamic");
    List<StreamId> everyNode = new ArrayList<>();
    collect(rt, after.root(), after.rootLevel(), everyNode);
    assertThat(everyNode.size()).as("the inserts split nodes").isGreaterThan(nodesBefore.size());
    assertThat(everyNode)
        .as("every node that existed before the splits is still in the tree under its own stream")
        .containsAll(nodesBefore);
    assertThat(tree.checkStructure().entries()).isEqualTo(40);
  }

  private static List<StreamId> leavesAndInner(VCorfuRuntime rt, StreamId root, int level) {
    List<StreamId> out = new ArrayList<>();
    collect(rt, root, level, out);
    return out;
  }

  private static void collect(VCorfuRuntime rt, StreamId id, int level, List<StreamId> out) {
    out.add(id);
    if (level > 0) {
      for (StreamId c : node(rt, id).children()) {
        collect(rt, c, level - 1, out);
      }
    }
  }

  @Test
  void theFanoutIsStoredAtCreationAndEveryClientAgrees() {
    VCorfuRuntime a = runtime();
    VCorfuRuntime b = runtime();
    CSMRBTree<Long, String> created = CSMRBTree.open(a, "fanout", 5);
    created.put(1L, "one");
    assertThat(CSMRBTree.<Long, String>open(b, "fanout").fanout()).isEqualTo(5);
    assertThat(CSMRBTree.<Long, String>open(b, "fanout", 5).get(1L)).isEqualTo("one");
    assertThatThrownBy(() -> CSMRBTree.open(b, "fanout", 6))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fanout 5");
    assertThatThrownBy(() -> CSMRBTree.open(b, "other", 2))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(CSMRBTree.<Long, String>open(b, "default").fanout())
        .isEqualTo(CSMRBTree.DEFAULT_FANOUT);
  }

  @Test
  void aSnapshotAsOfACommitAddressEqualsTheModelAtThatAddress() {
    VCorfuRuntime rt = runtime();
    CSMRBTree<Long, String> tree = CSMRBTree.open(rt, "history", 4);
    History history = History.write(rt, tree, new Random(9), 60, 30);
    List<Long> addresses = history.addresses();
    List<TreeMap<Long, String>> models = history.models();
    VCorfuRuntime reader = runtime();
    for (int i = 0; i < addresses.size(); i += 7) {
      CSMRBTree<Long, String> snapshot = CSMRBTree.openAsOf(reader, "history", addresses.get(i));
      assertThat(new ArrayList<>(snapshot.entrySet()))
          .as("as of %d", addresses.get(i))
          .containsExactlyElementsOf(models.get(i).entrySet());
      assertThat(snapshot.checkStructure().entries()).isEqualTo(models.get(i).size());
    }
    CSMRBTree<Long, String> old = CSMRBTree.openAsOf(reader, "history", addresses.get(0));
    assertThatThrownBy(() -> old.put(1L, "x")).isInstanceOf(ReadOnlyViewException.class);
    assertThatThrownBy(() -> CSMRBTree.openAsOf(reader, "never-created", addresses.get(0)))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void operationsJoinTheCallersTransactionAndCommitTogether() {
    VCorfuRuntime rt = runtime();
    CSMRBTree<Long, String> tree = CSMRBTree.open(rt, "joined", 3);
    rt.TXBegin();
    for (long k = 0; k < 12; k++) {
      tree.put(k, "v" + k);
    }
    assertThat(tree.size()).as("reads inside the transaction see its own writes").isEqualTo(12);
    rt.TXAbort();
    assertThat(tree).as("an aborted transaction leaves nothing behind").isEmpty();
    rt.transaction(
        () -> {
          for (long k = 0; k < 12; k++) {
            tree.put(k, "v" + k);
          }
        });
    assertThat(tree).hasSize(12);
    assertThat(tree.checkStructure().entries()).isEqualTo(12);
  }

  private static boolean commits(VCorfuRuntime rt) {
    try {
      rt.TXEnd();
      return true;
    } catch (io.vcorfu.runtime.TransactionAbortedException e) {
      return false;
    }
  }

  @Test
  void updatesOfDifferentExistingKeysInOneLeafCommitTogetherButInsertsIntoOneLeafConflict() {
    VCorfuRuntime r1 = runtime();
    VCorfuRuntime r2 = runtime();
    CSMRBTree<Long, String> t1 = CSMRBTree.open(r1, "per-key", 8);
    CSMRBTree<Long, String> t2 = CSMRBTree.open(r2, "per-key", 8);
    for (long k = 1; k <= 4; k++) {
      t1.put(k, "v" + k);
    }
    r1.TXBegin();
    r2.TXBegin();
    assertThat(t1.put(1L, "a")).isEqualTo("v1");
    assertThat(t2.put(2L, "b")).isEqualTo("v2");
    assertThat(new boolean[] {commits(r1), commits(r2)})
        .as("in-place updates of keys 1 and 2")
        .containsExactly(true, true);
    r1.TXBegin();
    r2.TXBegin();
    t1.put(5L, "new");
    t2.put(6L, "new");
    assertThat(new boolean[] {commits(r1), commits(r2)})
        .as("inserts of keys 5 and 6 into one leaf")
        .containsExactly(true, false);
    assertThat(t2).isEqualTo(java.util.Map.of(1L, "a", 2L, "b", 3L, "v3", 4L, "v4", 5L, "new"));
  }
}
