package io.vcorfu.collections.internal;

import java.util.Arrays;
import java.util.Objects;

/**
 * One immutable node of a {@link PersistentHashMap}'s trie (a compressed hash-array mapped trie).
 *
 * <p>A {@link Branch} consumes 5 bits of the key's 32-bit hash per level, lowest bits first. It
 * holds entries (a bit set in {@code dataMap}) and sub-nodes (a bit set in {@code nodeMap}) for the
 * 32 possible values of its 5 bits, packed in one array: every entry's key and value first, then
 * the sub-nodes, each group in bit order. Once the 32 bits are used up (level 7), keys whose hashes
 * are equal share a {@link Collision} node.
 *
 * <p>Canonical shape: below the root, a branch holds at least two entries, or at least one
 * sub-node; removal inlines a sub-node left with one entry into its parent. Updates copy only the
 * path from the root to the changed node (at most 8 nodes of at most 32 slots) and share every
 * other node with the previous version.
 */
abstract sealed class HamtNode permits HamtNode.Branch, HamtNode.Collision {
  static final int BITS = 5;
  static final int MAX_SHIFT = 32;

  /** What an update did: filled in by {@link #put} and {@link #remove}. */
  static final class Change {
    Object previous;
    boolean found;
    boolean changed;
  }

  static final Branch EMPTY = new Branch(0, 0, new Object[0]);

  /** The value mapped to {@code key} (whose hash is {@code hash}), or null. */
  abstract Object get(Object key, int hash, int shift);

  /** This node with {@code key} mapped to {@code value}; this node itself when nothing changed. */
  abstract HamtNode put(Object key, Object value, int hash, int shift, Change change);

  /** This node without {@code key}; this node itself when it was absent. */
  abstract HamtNode remove(Object key, int hash, int shift, Change change);

  /** Entries held directly in this node. */
  abstract int entryCount();

  /** Sub-nodes of this node. */
  abstract int nodeCount();

  abstract Object keyAt(int i);

  abstract Object valueAt(int i);

  abstract HamtNode nodeAt(int i);

  static int mask(int hash, int shift) {
    return (hash >>> shift) & 31;
  }

  /** A node holding two entries whose hashes agree below {@code shift}. */
  static HamtNode pair(Object k1, Object v1, int h1, Object k2, Object v2, int h2, int shift) {
    if (shift >= MAX_SHIFT) {
      return new Collision(h1, new Object[] {k1, v1, k2, v2});
    }
    int b1 = mask(h1, shift);
    int b2 = mask(h2, shift);
    if (b1 != b2) {
      Object[] slots = b1 < b2 ? new Object[] {k1, v1, k2, v2} : new Object[] {k2, v2, k1, v1};
      return new Branch((1 << b1) | (1 << b2), 0, slots);
    }
    return new Branch(0, 1 << b1, new Object[] {pair(k1, v1, h1, k2, v2, h2, shift + BITS)});
  }

  /** Inner node of the trie. */
  static final class Branch extends HamtNode {
    final int dataMap;
    final int nodeMap;
    final Object[] slots;

    Branch(int dataMap, int nodeMap, Object[] slots) {
      this.dataMap = dataMap;
      this.nodeMap = nodeMap;
      this.slots = slots;
    }

    private int dataIndex(int bit) {
      return Integer.bitCount(dataMap & (bit - 1));
    }

    private int nodeSlot(int bit) {
      return 2 * Integer.bitCount(dataMap) + Integer.bitCount(nodeMap & (bit - 1));
    }

    @Override
    Object get(Object key, int hash, int shift) {
      int bit = 1 << mask(hash, shift);
      if ((dataMap & bit) != 0) {
        int i = dataIndex(bit);
        return slots[2 * i].equals(key) ? slots[2 * i + 1] : null;
      }
      if ((nodeMap & bit) != 0) {
        return ((HamtNode) slots[nodeSlot(bit)]).get(key, hash, shift + BITS);
      }
      return null;
    }

    @Override
    HamtNode put(Object key, Object value, int hash, int shift, Change change) {
      int bit = 1 << mask(hash, shift);
      if ((dataMap & bit) != 0) {
        int i = dataIndex(bit);
        Object k = slots[2 * i];
        Object v = slots[2 * i + 1];
        if (k.equals(key)) {
          change.found = true;
          change.previous = v;
          if (v == value) {
            return this;
          }
          change.changed = true;
          Object[] copy = slots.clone();
          copy[2 * i + 1] = value;
          return new Branch(dataMap, nodeMap, copy);
        }
        change.changed = true;
        HamtNode sub = pair(k, v, k.hashCode(), key, value, hash, shift + BITS);
        return entryToNode(bit, i, sub);
      }
      if ((nodeMap & bit) != 0) {
        int s = nodeSlot(bit);
        HamtNode sub = (HamtNode) slots[s];
        HamtNode updated = sub.put(key, value, hash, shift + BITS, change);
        if (updated == sub) {
          return this;
        }
        Object[] copy = slots.clone();
        copy[s] = updated;
        return new Branch(dataMap, nodeMap, copy);
      }
      change.changed = true;
      int i = dataIndex(bit);
      Object[] copy = new Object[slots.length + 2];
      System.arraycopy(slots, 0, copy, 0, 2 * i);
      copy[2 * i] = key;
      copy[2 * i + 1] = value;
      System.arraycopy(slots, 2 * i, copy, 2 * i + 2, slots.length - 2 * i);
      return new Branch(dataMap | bit, nodeMap, copy);
    }

    /** Replaces the entry at data index {@code i} (bit {@code bit}) by sub-node {@code sub}. */
    private Branch entryToNode(int bit, int i, HamtNode sub) {
      Object[] copy = new Object[slots.length - 1];
      int newNodeSlot = 2 * (Integer.bitCount(dataMap) - 1) + Integer.bitCount(nodeMap & (bit - 1));
      System.arraycopy(slots, 0, copy, 0, 2 * i);
      System.arraycopy(slots, 2 * i + 2, copy, 2 * i, newNodeSlot - 2 * i);
      copy[newNodeSlot] = sub;
      System.arraycopy(
          slots, newNodeSlot + 2, copy, newNodeSlot + 1, slots.length - newNodeSlot - 2);
      return new Branch(dataMap ^ bit, nodeMap | bit, copy);
    }

    /** Replaces the sub-node at bit {@code bit} by its only entry {@code key -> value}. */
    private Branch nodeToEntry(int bit, Object key, Object value) {
      int oldNodeSlot = nodeSlot(bit);
      int i = dataIndex(bit);
      Object[] copy = new Object[slots.length + 1];
      System.arraycopy(slots, 0, copy, 0, 2 * i);
      copy[2 * i] = key;
      copy[2 * i + 1] = value;
      System.arraycopy(slots, 2 * i, copy, 2 * i + 2, oldNodeSlot - 2 * i);
      System.arraycopy(
          slots, oldNodeSlot + 1, copy, oldNodeSlot + 2, slots.length - oldNodeSlot - 1);
      return new Branch(dataMap | bit, nodeMap ^ bit, copy);
    }

    @Override
    HamtNode remove(Object key, int hash, int shift, Change change) {
      int bit = 1 << mask(hash, shift);
      if ((dataMap & bit) != 0) {
        int i = dataIndex(bit);
        if (!slots[2 * i].equals(key)) {
          return this;
        }
        change.found = true;
        change.changed = true;
        change.previous = slots[2 * i + 1];
        Object[] copy = new Object[slots.length - 2];
        System.arraycopy(slots, 0, copy, 0, 2 * i);
        System.arraycopy(slots, 2 * i + 2, copy, 2 * i, slots.length - 2 * i - 2);
        return new Branch(dataMap ^ bit, nodeMap, copy);
      }
      if ((nodeMap & bit) != 0) {
        int s = nodeSlot(bit);
        HamtNode sub = (HamtNode) slots[s];
        HamtNode updated = sub.remove(key, hash, shift + BITS, change);
        if (updated == sub) {
          return this;
        }
        if (updated.nodeCount() == 0 && updated.entryCount() == 1) {
          if (shift > 0 && dataMap == 0 && Integer.bitCount(nodeMap) == 1) {
            return updated; // this node would hold just one entry: the parent inlines it
          }
          return nodeToEntry(bit, updated.keyAt(0), updated.valueAt(0));
        }
        Object[] copy = slots.clone();
        copy[s] = updated;
        return new Branch(dataMap, nodeMap, copy);
      }
      return this;
    }

    @Override
    int entryCount() {
      return Integer.bitCount(dataMap);
    }

    @Override
    int nodeCount() {
      return Integer.bitCount(nodeMap);
    }

    @Override
    Object keyAt(int i) {
      return slots[2 * i];
    }

    @Override
    Object valueAt(int i) {
      return slots[2 * i + 1];
    }

    @Override
    HamtNode nodeAt(int i) {
      return (HamtNode) slots[2 * Integer.bitCount(dataMap) + i];
    }
  }

  /** Entries whose keys have equal 32-bit hashes, as key/value pairs in insertion order. */
  static final class Collision extends HamtNode {
    final int hash;
    final Object[] pairs;

    Collision(int hash, Object[] pairs) {
      this.hash = hash;
      this.pairs = pairs;
    }

    private int indexOf(Object key) {
      for (int i = 0; i < pairs.length; i += 2) {
        if (pairs[i].equals(key)) {
          return i;
        }
      }
      return -1;
    }

    @Override
    Object get(Object key, int hash, int shift) {
      int i = this.hash == hash ? indexOf(key) : -1;
      return i < 0 ? null : pairs[i + 1];
    }

    @Override
    HamtNode put(Object key, Object value, int hash, int shift, Change change) {
      int i = indexOf(key);
      if (i >= 0) {
        change.found = true;
        change.previous = pairs[i + 1];
        if (pairs[i + 1] == value) {
          return this;
        }
        change.changed = true;
        Object[] copy = pairs.clone();
        copy[i + 1] = value;
        return new Collision(this.hash, copy);
      }
      change.changed = true;
      Object[] copy = Arrays.copyOf(pairs, pairs.length + 2);
      copy[pairs.length] = key;
      copy[pairs.length + 1] = value;
      return new Collision(this.hash, copy);
    }

    @Override
    HamtNode remove(Object key, int hash, int shift, Change change) {
      int i = indexOf(key);
      if (i < 0) {
        return this;
      }
      change.found = true;
      change.changed = true;
      change.previous = pairs[i + 1];
      Object[] copy = new Object[pairs.length - 2];
      System.arraycopy(pairs, 0, copy, 0, i);
      System.arraycopy(pairs, i + 2, copy, i, pairs.length - i - 2);
      return new Collision(this.hash, copy);
    }

    @Override
    int entryCount() {
      return pairs.length / 2;
    }

    @Override
    int nodeCount() {
      return 0;
    }

    @Override
    Object keyAt(int i) {
      return pairs[2 * i];
    }

    @Override
    Object valueAt(int i) {
      return pairs[2 * i + 1];
    }

    @Override
    HamtNode nodeAt(int i) {
      throw new IndexOutOfBoundsException(Objects.toString(i));
    }
  }
}
