package io.vcorfu.collections;

import io.vcorfu.collections.internal.ListVersion;
import io.vcorfu.collections.internal.PersistentSequence;
import java.util.AbstractList;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Objects;

/**
 * A list bound to one version of an {@link SMRList}, read locally, with writes that go through to
 * the replicated list. The iterators, list iterators and sub-lists of {@code SMRList} are backed by
 * one.
 *
 * <p>Reads are served from the version the list was bound to plus its own writes: no request, never
 * a mix of versions. Each write is sent as a version-bound update that the list applies only if its
 * change count still equals this one's, so it lands exactly where this list says; otherwise the
 * list is untouched and the write throws {@link ConcurrentModificationException}. After a write
 * this list holds exactly the list's new version (the update changed its version and nothing else),
 * so it can keep writing.
 *
 * <p>Not thread-safe, like the {@code java.util} iterators and views it backs.
 */
final class VersionBoundList<E> extends AbstractList<E> {
  private final SMRList<E> list;
  private PersistentSequence<E> elements;
  private long changes;

  VersionBoundList(SMRList<E> list, ListVersion<E> version) {
    this.list = list;
    this.elements = version.sequence();
    this.changes = version.changes();
  }

  @Override
  public E get(int index) {
    return elements.get(index);
  }

  @Override
  public int size() {
    return elements.size();
  }

  @Override
  public E set(int index, E element) {
    Objects.requireNonNull(element, "SMRList refuses null elements");
    E old = elements.get(index);
    list.setIfVersion(changes, index, element);
    elements = elements.with(index, element);
    changes++;
    return old;
  }

  @Override
  public void add(int index, E element) {
    Objects.requireNonNull(element, "SMRList refuses null elements");
    Objects.checkIndex(index, elements.size() + 1);
    list.insertIfVersion(changes, index, element);
    elements = elements.insert(index, element);
    changes++;
    modCount++;
  }

  @Override
  public E remove(int index) {
    E old = elements.get(index);
    removeRange(index, index + 1);
    return old;
  }

  @Override
  protected void removeRange(int fromIndex, int toIndex) {
    if (fromIndex >= toIndex) {
      return;
    }
    list.removeRangeIfVersion(changes, fromIndex, toIndex);
    elements = elements.deleteRange(fromIndex, toIndex);
    changes++;
    modCount++;
  }

  /** Last to first; {@code remove} writes through like the forward iterators'. */
  Iterator<E> descendingIterator() {
    return new Iterator<>() {
      private int next = size() - 1;
      private int last = -1;
      private int expectedModCount = modCount;

      @Override
      public boolean hasNext() {
        return next >= 0;
      }

      @Override
      public E next() {
        if (modCount != expectedModCount) {
          throw new ConcurrentModificationException();
        }
        if (next < 0) {
          throw new NoSuchElementException();
        }
        last = next--;
        return get(last);
      }

      @Override
      public void remove() {
        if (last < 0) {
          throw new IllegalStateException("next() has not been called since the last remove()");
        }
        if (modCount != expectedModCount) {
          throw new ConcurrentModificationException();
        }
        VersionBoundList.this.remove(last);
        last = -1;
        expectedModCount = modCount;
      }
    };
  }
}
