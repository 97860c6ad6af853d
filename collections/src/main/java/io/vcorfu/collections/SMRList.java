package io.vcorfu.collections;

import io.vcorfu.collections.internal.ListVersion;
import io.vcorfu.collections.internal.PersistentSequence;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.VersionCapturing;
import io.vcorfu.runtime.annotations.Accessor;
import io.vcorfu.runtime.annotations.Mutator;
import io.vcorfu.runtime.annotations.MutatorAccessor;
import java.util.Collection;
import java.util.Comparator;
import java.util.ConcurrentModificationException;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.ListIterator;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Spliterator;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * A replicated list that is at the same time a {@link List}, a {@link java.util.Queue} and a {@link
 * Deque} (a stack through {@link #push}/{@link #pop}): one stream, one state, many views. Open it
 * like any object: {@code rt.objects().open("jobs", SMRList.class)}.
 *
 * <p><b>State.</b> The elements live in a {@link PersistentSequence}, an AVL tree ordered by
 * position with subtree sizes and path copying. Reading or updating any index, both ends included,
 * costs O(log n), and each update leaves the previous version intact while sharing all but O(log n)
 * of its nodes. That makes {@link VersionCapturing} capture O(1), so snapshot reads, {@code asOf}
 * views and transaction copies never copy or replay the list, and it lets iterators, list iterators
 * and sub-lists read one consistent version for as long as they live at no cost. An array would
 * make every captured version an O(n) copy; a linked list would make indexed access O(n).
 * Checkpoints hold the {@link ListVersion} record (change count and elements as a list).
 *
 * <p><b>Semantics.</b> Element updates are appended to the log; operations that depend on the state
 * at their log position are {@code @MutatorAccessor}s and return (or throw) what they produced
 * there: {@code add(int, E)}, {@code set}, {@code remove(int)} validate the index at their position
 * and throw {@link IndexOutOfBoundsException}; {@code poll*} return null and {@code remove()},
 * {@code removeFirst}, {@code removeLast}, {@code pop} throw {@link NoSuchElementException} when
 * the list is empty there, exactly like {@link java.util.ArrayDeque}. Adding at either end is a
 * blind write that returns without waiting. Concurrent clients polling one list each receive
 * different elements: every element is removed exactly once.
 *
 * <p><b>Nulls</b> are refused, as in {@link java.util.ArrayDeque}: adding or setting null throws
 * {@link NullPointerException} at the call site (nothing is appended); {@code contains(null)},
 * {@code indexOf(null)} and {@code remove(null)} answer false / -1 / false. Elements must be values
 * the object's serializer encodes (with the default serializer: boxed primitives, strings, UUIDs,
 * instants, lists, sets and maps of those); anything else fails with {@code
 * UnsupportedTypeException} before anything is appended. The element type is a type variable, so
 * the runtime cannot admit user records or enums for it: admit them first with {@code
 * DefaultSerializer.allow(MyRecord.class)} on the runtime's serializer.
 *
 * <p><b>Iterators, list iterators and sub-lists</b> read the version of the list current when they
 * were created (plus their own writes), never a mix of versions. They write through: {@code
 * remove}, {@code set} and {@code add} on them update the replicated list at their index in that
 * version, and only if no other update (from this or any other client) changed the list since; if
 * one did, the write changes nothing and throws {@link ConcurrentModificationException}, the
 * replicated form of {@code java.util}'s fail-fast iterators. {@link #removeIf}, {@link
 * #removeAll}, {@link #retainAll}, {@link #replaceAll} and {@link #sort} evaluate their argument
 * here on one version and apply the result only onto that version, retrying on a newer version when
 * another update got in first, so each takes effect atomically.
 *
 * <p>{@link #equals} and {@link #hashCode} follow the {@link List} contract (element-wise, one
 * version). On a remote view, exceptions raised on the host arrive as {@code RemoteCallException}.
 * Thread-safe, like every object the runtime opens. {@link #captureVersion()} and {@link
 * #restoreVersion} are for the runtime: called on an opened list they read or replace the local
 * state without syncing.
 */
public class SMRList<E> extends ListAliases<E>
    implements List<E>, Deque<E>, VersionCapturing<ListVersion<E>> {
  private PersistentSequence<E> elements = PersistentSequence.empty();

  /** How many updates changed the list (see {@link ListVersion#changes()}). */
  private long changes;

  /** For the runtime: lists are opened through a {@link VCorfuRuntime}, not constructed. */
  protected SMRList() {}

  /**
   * Opens the list called {@code name} in {@code rt} (a typed shortcut for {@code
   * rt.objects().open}).
   */
  @SuppressWarnings("unchecked")
  public static <E> SMRList<E> open(VCorfuRuntime rt, String name) {
    return rt.objects().open(name, SMRList.class);
  }

  // ---- state -------------------------------------------------------------------------------

  private PersistentSequence<E> seq() {
    return elements;
  }

  private void change(PersistentSequence<E> next) {
    elements = next;
    changes++;
  }

  @Override
  public ListVersion<E> captureVersion() {
    return new ListVersion<>(changes, seq());
  }

  @Override
  public void restoreVersion(ListVersion<E> version) {
    elements = version.sequence();
    changes = version.changes();
  }

  // ---- reads -------------------------------------------------------------------------------

  /** The current version: the elements and the change count, read together. */
  @Accessor
  protected ListVersion<E> currentVersion() {
    return captureVersion();
  }

  @Accessor
  @Override
  public int size() {
    return seq().size();
  }

  @Accessor
  @Override
  public boolean isEmpty() {
    return seq().isEmpty();
  }

  @Accessor
  @Override
  public E get(int index) {
    return seq().get(ListChecks.checkIndex(index, size()));
  }

  @Accessor
  @Override
  public boolean contains(Object o) {
    return o != null && seq().contains(o);
  }

  @Accessor
  @Override
  public int indexOf(Object o) {
    return o == null ? -1 : seq().indexOf(o);
  }

  @Accessor
  @Override
  public int lastIndexOf(Object o) {
    return o == null ? -1 : seq().lastIndexOf(o);
  }

  @Accessor
  @Override
  public E peekFirst() {
    return seq().isEmpty() ? null : seq().get(0);
  }

  @Accessor
  @Override
  public E peekLast() {
    return seq().isEmpty() ? null : seq().get(seq().size() - 1);
  }

  @Accessor
  @Override
  public E getFirst() {
    return ListChecks.nonEmpty(peekFirst());
  }

  @Accessor
  @Override
  public E getLast() {
    return ListChecks.nonEmpty(peekLast());
  }

  @Override
  public boolean containsAll(Collection<?> c) {
    return currentVersion().sequence().containsAll(c);
  }

  @Override
  public Object[] toArray() {
    return currentVersion().sequence().toArray();
  }

  @Override
  public <T> T[] toArray(T[] a) {
    return currentVersion().sequence().toArray(a);
  }

  @Override
  public Spliterator<E> spliterator() {
    return currentVersion().sequence().spliterator();
  }

  /**
   * An iterator over the current version; {@code remove} writes through (see the class comment).
   */
  @Override
  public Iterator<E> iterator() {
    return boundToCurrentVersion().iterator();
  }

  @Override
  public ListIterator<E> listIterator() {
    return boundToCurrentVersion().listIterator();
  }

  @Override
  public ListIterator<E> listIterator(int index) {
    return boundToCurrentVersion().listIterator(index);
  }

  /** Last to first over the current version; {@code remove} writes through. */
  @Override
  public Iterator<E> descendingIterator() {
    return boundToCurrentVersion().descendingIterator();
  }

  /** The range of the current version; reads see that version, writes go through to this list. */
  @Override
  public List<E> subList(int fromIndex, int toIndex) {
    return boundToCurrentVersion().subList(fromIndex, toIndex);
  }

  private VersionBoundList<E> boundToCurrentVersion() {
    return new VersionBoundList<>(this, currentVersion());
  }

  @Override
  public boolean equals(Object o) {
    return o == this || (o instanceof List<?> && currentVersion().sequence().equals(o));
  }

  @Override
  public int hashCode() {
    return currentVersion().sequence().hashCode();
  }

  @Override
  public String toString() {
    return currentVersion().sequence().toString();
  }

  // ---- writes at the ends --------------------------------------------------------------------

  @Override
  public void addFirst(E e) {
    insertFirst(Objects.requireNonNull(e, "SMRList refuses null elements"));
  }

  @Override
  public void addLast(E e) {
    insertLast(Objects.requireNonNull(e, "SMRList refuses null elements"));
  }

  @MutatorAccessor
  @Override
  public E pollFirst() {
    PersistentSequence<E> s = seq();
    if (s.isEmpty()) {
      return null;
    }
    E first = s.get(0);
    change(s.delete(0));
    return first;
  }

  @MutatorAccessor
  @Override
  public E pollLast() {
    PersistentSequence<E> s = seq();
    if (s.isEmpty()) {
      return null;
    }
    E last = s.get(s.size() - 1);
    change(s.delete(s.size() - 1));
    return last;
  }

  @Override
  public boolean addAll(Collection<? extends E> c) {
    List<E> copy = ListChecks.nonNullCopy(c);
    if (copy.isEmpty()) {
      return false;
    }
    insertLastAll(copy);
    return true;
  }

  /** Removes every element. */
  @Mutator
  @Override
  public void clear() {
    if (!seq().isEmpty()) {
      change(PersistentSequence.empty());
    }
  }

  // ---- writes by index and by value ----------------------------------------------------------

  @Override
  public void add(int index, E element) {
    insertAt(index, Objects.requireNonNull(element, "SMRList refuses null elements"));
  }

  @Override
  public boolean addAll(int index, Collection<? extends E> c) {
    List<E> copy = ListChecks.nonNullCopy(c);
    insertAllAt(index, copy);
    return !copy.isEmpty();
  }

  @Override
  public E set(int index, E element) {
    return replaceAt(index, Objects.requireNonNull(element, "SMRList refuses null elements"));
  }

  /** Removes and returns the element at {@code index} as of this call's log position. */
  @MutatorAccessor
  @Override
  public E remove(int index) {
    PersistentSequence<E> s = seq();
    E old = s.get(ListChecks.checkIndex(index, s.size()));
    change(s.delete(index));
    return old;
  }

  @Override
  public boolean removeFirstOccurrence(Object o) {
    return o != null && removeOccurrence(o, false);
  }

  @Override
  public boolean removeLastOccurrence(Object o) {
    return o != null && removeOccurrence(o, true);
  }

  @Override
  public boolean removeIf(Predicate<? super E> filter) {
    return ListRewrites.removeIf(this, Objects.requireNonNull(filter, "filter"));
  }

  @Override
  public void replaceAll(UnaryOperator<E> operator) {
    ListRewrites.replaceAll(this, Objects.requireNonNull(operator, "operator"));
  }

  @Override
  public void sort(Comparator<? super E> c) {
    ListRewrites.sort(this, c);
  }

  // ---- updates as they travel on the log -----------------------------------------------------

  /** Adds {@code e} at the front. */
  @Mutator
  protected void insertFirst(E e) {
    change(seq().insert(0, Objects.requireNonNull(e)));
  }

  /** Adds {@code e} at the back. */
  @Mutator
  protected void insertLast(E e) {
    change(seq().insert(seq().size(), Objects.requireNonNull(e)));
  }

  /** Adds every element of {@code c} at the back, in order. */
  @Mutator
  protected void insertLastAll(List<E> c) {
    ListChecks.requireNoNulls(c);
    change(seq().insertAll(seq().size(), c));
  }

  /** Inserts {@code e} at {@code index} (0 to size). */
  @MutatorAccessor
  protected void insertAt(int index, E e) {
    Objects.requireNonNull(e);
    change(seq().insert(ListChecks.checkIndex(index, size() + 1), e));
  }

  /** Inserts every element of {@code c} at {@code index} (0 to size), in order. */
  @MutatorAccessor
  protected void insertAllAt(int index, List<E> c) {
    ListChecks.requireNoNulls(c);
    ListChecks.checkIndex(index, size() + 1);
    if (!c.isEmpty()) {
      change(seq().insertAll(index, c));
    }
  }

  /** Replaces the element at {@code index}; returns the old one. */
  @MutatorAccessor
  protected E replaceAt(int index, E e) {
    Objects.requireNonNull(e);
    E old = seq().get(ListChecks.checkIndex(index, size()));
    change(seq().with(index, e));
    return old;
  }

  /** Removes the first (or last) element equal to {@code o}; true if there was one. */
  @MutatorAccessor
  protected boolean removeOccurrence(Object o, boolean last) {
    int i = last ? seq().lastIndexOf(o) : seq().indexOf(o);
    if (i < 0) {
      return false;
    }
    change(seq().delete(i));
    return true;
  }

  /** {@code set(index, e)} applied only to version {@code version}. */
  @MutatorAccessor
  protected void setIfVersion(long version, int index, E e) {
    ListChecks.requireVersion(changes, version);
    replaceAt(index, e);
  }

  /** {@code add(index, e)} applied only to version {@code version}. */
  @MutatorAccessor
  protected void insertIfVersion(long version, int index, E e) {
    ListChecks.requireVersion(changes, version);
    insertAt(index, e);
  }

  /**
   * Removes positions {@code from} (inclusive) to {@code to} (exclusive), only from version {@code
   * version}.
   */
  @MutatorAccessor
  protected void removeRangeIfVersion(long version, int from, int to) {
    ListChecks.requireVersion(changes, version);
    Objects.checkFromToIndex(from, to, size());
    if (from < to) {
      change(seq().deleteRange(from, to));
    }
  }

  /**
   * Removes the positions {@code ascending} (sorted, distinct), only from version {@code version}.
   */
  @MutatorAccessor
  protected void removeIndexesIfVersion(long version, List<Integer> ascending) {
    ListChecks.requireVersion(changes, version);
    PersistentSequence<E> s = seq();
    for (int k = ascending.size() - 1; k >= 0; k--) {
      s = s.delete(ascending.get(k));
    }
    change(s);
  }

  /** Replaces the whole content by {@code content}, only at version {@code version}. */
  @MutatorAccessor
  protected void rewriteIfVersion(long version, List<E> content) {
    ListChecks.requireVersion(changes, version);
    ListChecks.requireNoNulls(content);
    change(PersistentSequence.copyOf(content));
  }
}
