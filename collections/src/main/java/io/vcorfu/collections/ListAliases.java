package io.vcorfu.collections;

import java.util.Collection;
import java.util.Deque;
import java.util.List;
import java.util.Objects;

/**
 * The operations of {@link SMRList} that are another of its operations under another name: the
 * {@link java.util.Queue} and stack names of its ends ({@code offer}, {@code poll}, {@code peek},
 * {@code element}, {@code push}, {@code pop}, {@code remove()}), {@code removeFirst} and {@code
 * removeLast} as the throwing forms of {@code pollFirst} and {@code pollLast}, and the {@link
 * Collection} forms of adding and removing by value.
 *
 * <p>Each calls the list's own operation and answers, appends and throws exactly what that one
 * does. None carries an annotation: the runtime intercepts only the annotated methods of {@code
 * SMRList}, which these reach through the list's own operations.
 */
abstract class ListAliases<E> implements List<E>, Deque<E> {
  /** For {@link SMRList} only. */
  ListAliases() {}

  @Override
  public E peek() {
    return peekFirst();
  }

  @Override
  public E element() {
    return getFirst();
  }

  @Override
  public boolean add(E e) {
    addLast(e);
    return true;
  }

  @Override
  public boolean offerFirst(E e) {
    addFirst(e);
    return true;
  }

  @Override
  public boolean offerLast(E e) {
    addLast(e);
    return true;
  }

  @Override
  public boolean offer(E e) {
    return offerLast(e);
  }

  @Override
  public void push(E e) {
    addFirst(e);
  }

  @Override
  public E poll() {
    return pollFirst();
  }

  @Override
  public E removeFirst() {
    return ListChecks.nonEmpty(pollFirst());
  }

  @Override
  public E removeLast() {
    return ListChecks.nonEmpty(pollLast());
  }

  @Override
  public E remove() {
    return removeFirst();
  }

  @Override
  public E pop() {
    return removeFirst();
  }

  @Override
  public boolean remove(Object o) {
    return removeFirstOccurrence(o);
  }

  @Override
  public boolean removeAll(Collection<?> c) {
    Objects.requireNonNull(c, "c");
    return removeIf(c::contains);
  }

  @Override
  public boolean retainAll(Collection<?> c) {
    Objects.requireNonNull(c, "c");
    return removeIf(e -> !c.contains(e));
  }
}
