package io.vcorfu.collections.internal;

import java.util.List;

/**
 * One version of a replicated list: its elements and how many changes produced it. Immutable.
 *
 * <p>{@code changes} counts the updates that changed the list, from 0 for the empty list at its
 * start; every client playing the same stream computes the same count at the same address, so a
 * count names one version of one list everywhere (iterators and views use it to write back only
 * onto the version they read).
 *
 * @param changes how many updates changed the list up to this version
 * @param elements the elements, always a {@link PersistentSequence} (a decoded plain list is
 *     converted on construction)
 */
public record ListVersion<E>(long changes, List<E> elements) {
  public ListVersion {
    elements = PersistentSequence.copyOf(elements);
  }

  /** The elements as the persistent sequence they are held in. */
  public PersistentSequence<E> sequence() {
    return (PersistentSequence<E>) elements;
  }
}
