package io.vcorfu.collections.internal;

import java.util.AbstractList;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;

/**
 * An immutable, persistent indexed sequence: an AVL tree ordered by position, each node carrying
 * its subtree's size. Every update ({@link #with}, {@link #insert}, {@link #delete}) copies only
 * the O(log n) nodes on the path from the root to the position and shares every other node with the
 * version it started from, so a new version costs O(log n) time and space and every older version
 * stays intact and readable.
 *
 * <p>Costs, n the length: {@link #get}, {@link #with}, {@link #insert}, {@link #delete} at any
 * index (both ends included) O(log n); {@link #copyOf} O(n) (a perfectly balanced tree is built
 * directly); {@link #insertAll} and {@link #deleteRange} of k elements O(k log n); iteration O(1)
 * amortized per element, from any starting index after an O(log n) descent; {@link #indexOf}/{@link
 * #contains} O(n).
 *
 * <p>It is a read-only {@link List} (the {@code java.util} mutators throw {@link
 * UnsupportedOperationException}), so a version can be handed out to readers, compared with any
 * list and encoded as a plain list. Thread-safe: instances never change after construction.
 */
public final class PersistentSequence<E> extends AbstractList<E> {
  private static final PersistentSequence<Object> EMPTY = new PersistentSequence<>(null);

  private static final class Node<E> {
    final Node<E> left;
    final E value;
    final Node<E> right;
    final int size;
    final int height;

    Node(Node<E> left, E value, Node<E> right) {
      this.left = left;
      this.value = value;
      this.right = right;
      this.size = sizeOf(left) + 1 + sizeOf(right);
      this.height = 1 + Math.max(heightOf(left), heightOf(right));
    }
  }

  private final Node<E> root;

  private PersistentSequence(Node<E> root) {
    this.root = root;
  }

  /** The empty sequence. */
  @SuppressWarnings("unchecked")
  public static <E> PersistentSequence<E> empty() {
    return (PersistentSequence<E>) EMPTY;
  }

  /**
   * A sequence holding {@code elements} in their iteration order; {@code elements} itself when it
   * already is a persistent sequence.
   */
  @SuppressWarnings("unchecked")
  public static <E> PersistentSequence<E> copyOf(Collection<? extends E> elements) {
    if (elements instanceof PersistentSequence<?> s) {
      return (PersistentSequence<E>) s;
    }
    Object[] a = elements.toArray();
    return a.length == 0 ? empty() : new PersistentSequence<>(build(a, 0, a.length));
  }

  @SuppressWarnings("unchecked")
  private static <E> Node<E> build(Object[] a, int from, int to) {
    if (from >= to) {
      return null;
    }
    int mid = (from + to) >>> 1;
    return new Node<>(build(a, from, mid), (E) a[mid], build(a, mid + 1, to));
  }

  @Override
  public int size() {
    return sizeOf(root);
  }

  @Override
  public boolean isEmpty() {
    return root == null;
  }

  @Override
  public E get(int index) {
    Objects.checkIndex(index, size());
    Node<E> n = root;
    while (true) {
      int ls = sizeOf(n.left);
      if (index < ls) {
        n = n.left;
      } else if (index == ls) {
        return n.value;
      } else {
        index -= ls + 1;
        n = n.right;
      }
    }
  }

  /** This sequence with the element at {@code index} replaced by {@code element}. */
  public PersistentSequence<E> with(int index, E element) {
    Objects.checkIndex(index, size());
    return new PersistentSequence<>(replace(root, index, element));
  }

  /** This sequence with {@code element} inserted at {@code index} (0 to {@link #size()}). */
  public PersistentSequence<E> insert(int index, E element) {
    Objects.checkIndex(index, size() + 1);
    return new PersistentSequence<>(insert(root, index, element));
  }

  /** This sequence with the element at {@code index} removed. */
  public PersistentSequence<E> delete(int index) {
    Objects.checkIndex(index, size());
    return new PersistentSequence<>(delete(root, index));
  }

  /** This sequence with {@code elements} inserted, in their order, starting at {@code index}. */
  public PersistentSequence<E> insertAll(int index, Collection<? extends E> elements) {
    Objects.checkIndex(index, size() + 1);
    if (root == null) {
      return copyOf(elements);
    }
    Node<E> r = root;
    int at = index;
    for (E e : elements) {
      r = insert(r, at++, e);
    }
    return new PersistentSequence<>(r);
  }

  /**
   * This sequence without the elements at positions {@code from} (inclusive) to {@code to}
   * (exclusive).
   */
  public PersistentSequence<E> deleteRange(int from, int to) {
    Objects.checkFromToIndex(from, to, size());
    if (from == 0 && to == size()) {
      return empty();
    }
    Node<E> r = root;
    for (int i = from; i < to; i++) {
      r = delete(r, from);
    }
    return new PersistentSequence<>(r);
  }

  @Override
  public Iterator<E> iterator() {
    return iterator(0);
  }

  /** Iterates from {@code index} (0 to {@link #size()}) to the end; O(log n) to start. */
  public Iterator<E> iterator(int index) {
    Objects.checkIndex(index, size() + 1);
    return new InOrder<>(root, index, true);
  }

  /** Iterates from the last element to the first. */
  public Iterator<E> descendingIterator() {
    return new InOrder<>(root, size() - 1, false);
  }

  @Override
  public int indexOf(Object o) {
    int i = 0;
    for (E e : this) {
      if (Objects.equals(o, e)) {
        return i;
      }
      i++;
    }
    return -1;
  }

  @Override
  public int lastIndexOf(Object o) {
    int i = size() - 1;
    for (Iterator<E> it = descendingIterator(); it.hasNext(); i--) {
      if (Objects.equals(o, it.next())) {
        return i;
      }
    }
    return -1;
  }

  @Override
  public boolean contains(Object o) {
    return indexOf(o) >= 0;
  }

  @Override
  public boolean equals(Object o) {
    if (o == this) {
      return true;
    }
    if (!(o instanceof List<?> other)) {
      return false;
    }
    Iterator<E> mine = iterator();
    Iterator<?> theirs = other.iterator();
    while (mine.hasNext() && theirs.hasNext()) {
      if (!Objects.equals(mine.next(), theirs.next())) {
        return false;
      }
    }
    return !mine.hasNext() && !theirs.hasNext();
  }

  @Override
  public int hashCode() {
    return super.hashCode();
  }

  /** Height of the tree (0 when empty); for tests of the balance bound. */
  public int height() {
    return heightOf(root);
  }

  /**
   * Checks every node's size and height fields and the AVL balance condition.
   *
   * @throws IllegalStateException naming the first violation
   */
  public void checkInvariants() {
    check(root);
  }

  private static void check(Node<?> n) {
    if (n == null) {
      return;
    }
    check(n.left);
    check(n.right);
    if (n.size != sizeOf(n.left) + 1 + sizeOf(n.right)
        || n.height != 1 + Math.max(heightOf(n.left), heightOf(n.right))) {
      throw new IllegalStateException("a node's size or height field is wrong");
    }
    if (Math.abs(heightOf(n.left) - heightOf(n.right)) > 1) {
      throw new IllegalStateException("a node's subtrees differ in height by more than one");
    }
  }

  private static int sizeOf(Node<?> n) {
    return n == null ? 0 : n.size;
  }

  private static int heightOf(Node<?> n) {
    return n == null ? 0 : n.height;
  }

  private static <E> Node<E> replace(Node<E> n, int index, E element) {
    int ls = sizeOf(n.left);
    if (index < ls) {
      return new Node<>(replace(n.left, index, element), n.value, n.right);
    }
    if (index > ls) {
      return new Node<>(n.left, n.value, replace(n.right, index - ls - 1, element));
    }
    return new Node<>(n.left, element, n.right);
  }

  private static <E> Node<E> insert(Node<E> n, int index, E element) {
    if (n == null) {
      return new Node<>(null, element, null);
    }
    int ls = sizeOf(n.left);
    if (index <= ls) {
      return balance(insert(n.left, index, element), n.value, n.right);
    }
    return balance(n.left, n.value, insert(n.right, index - ls - 1, element));
  }

  private static <E> Node<E> delete(Node<E> n, int index) {
    int ls = sizeOf(n.left);
    if (index < ls) {
      return balance(delete(n.left, index), n.value, n.right);
    }
    if (index > ls) {
      return balance(n.left, n.value, delete(n.right, index - ls - 1));
    }
    if (n.left == null) {
      return n.right;
    }
    if (n.right == null) {
      return n.left;
    }
    Node<E> first = n.right;
    while (first.left != null) {
      first = first.left;
    }
    return balance(n.left, first.value, delete(n.right, 0));
  }

  /**
   * A node with subtrees {@code l} and {@code r} whose heights differ by at most two (what one
   * insertion or deletion below can cause), rotated back within the AVL bound.
   */
  private static <E> Node<E> balance(Node<E> l, E v, Node<E> r) {
    int hl = heightOf(l);
    int hr = heightOf(r);
    if (hl > hr + 1) {
      if (heightOf(l.left) >= heightOf(l.right)) {
        return new Node<>(l.left, l.value, new Node<>(l.right, v, r));
      }
      Node<E> lr = l.right;
      return new Node<>(new Node<>(l.left, l.value, lr.left), lr.value, new Node<>(lr.right, v, r));
    }
    if (hr > hl + 1) {
      if (heightOf(r.right) >= heightOf(r.left)) {
        return new Node<>(new Node<>(l, v, r.left), r.value, r.right);
      }
      Node<E> rl = r.left;
      return new Node<>(
          new Node<>(l, v, rl.left), rl.value, new Node<>(rl.right, r.value, r.right));
    }
    return new Node<>(l, v, r);
  }

  /** In-order (or reverse) traversal with an explicit stack of the nodes still to visit. */
  private static final class InOrder<E> implements Iterator<E> {
    private final ArrayDeque<Node<E>> stack = new ArrayDeque<>();
    private final boolean forward;

    InOrder(Node<E> root, int start, boolean forward) {
      this.forward = forward;
      Node<E> n = root;
      int k = start;
      while (n != null && k >= 0) {
        int ls = sizeOf(n.left);
        if (k < ls) {
          if (forward) {
            stack.push(n);
          }
          n = n.left;
        } else if (k == ls) {
          stack.push(n);
          break;
        } else {
          if (!forward) {
            stack.push(n);
          }
          k -= ls + 1;
          n = n.right;
        }
      }
    }

    @Override
    public boolean hasNext() {
      return !stack.isEmpty();
    }

    @Override
    public E next() {
      if (stack.isEmpty()) {
        throw new NoSuchElementException();
      }
      Node<E> n = stack.pop();
      for (Node<E> c = forward ? n.right : n.left; c != null; c = forward ? c.left : c.right) {
        stack.push(c);
      }
      return n.value;
    }
  }
}
