package io.vcorfu.collections;

import io.vcorfu.collections.internal.ListVersion;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * The {@link SMRList} operations whose argument is code ({@code removeIf}, {@code replaceAll},
 * {@code sort}): code cannot travel on the log, so each is evaluated here on one version of the
 * list and its result sent as a version-bound update, which the list applies only onto that same
 * version. When another update got in first, the update changes nothing and the operation is
 * evaluated again on the newer version; every retry follows an update that did take effect, so the
 * loop ends as soon as the list is quiet. Inside a transaction the version is the transaction's and
 * the update commits with it (or the transaction aborts), so no retry happens.
 */
final class ListRewrites {
  private ListRewrites() {}

  static <E> boolean removeIf(SMRList<E> list, Predicate<? super E> filter) {
    while (true) {
      ListVersion<E> v = list.currentVersion();
      List<Integer> doomed = new ArrayList<>();
      int i = 0;
      for (E e : v.elements()) {
        if (filter.test(e)) {
          doomed.add(i);
        }
        i++;
      }
      if (doomed.isEmpty()) {
        return false;
      }
      try {
        list.removeIndexesIfVersion(v.changes(), doomed);
        return true;
      } catch (ConcurrentModificationException e) {
        // Another update changed the list after v was read: evaluate again on the newer version.
      }
    }
  }

  static <E> void replaceAll(SMRList<E> list, UnaryOperator<E> operator) {
    rewrite(
        list,
        elements -> {
          List<E> out = new ArrayList<>(elements.size());
          for (E e : elements) {
            out.add(Objects.requireNonNull(operator.apply(e), "SMRList refuses null elements"));
          }
          return out;
        });
  }

  static <E> void sort(SMRList<E> list, Comparator<? super E> c) {
    rewrite(
        list,
        elements -> {
          @SuppressWarnings("unchecked")
          E[] a = (E[]) elements.toArray();
          Arrays.sort(a, c);
          return new ArrayList<>(Arrays.asList(a));
        });
  }

  private static <E> void rewrite(SMRList<E> list, Function<List<E>, List<E>> f) {
    while (true) {
      ListVersion<E> v = list.currentVersion();
      if (v.elements().isEmpty()) {
        return;
      }
      List<E> next = f.apply(v.elements());
      try {
        list.rewriteIfVersion(v.changes(), next);
        return;
      } catch (ConcurrentModificationException e) {
        // Another update changed the list after v was read: evaluate again on the newer version.
      }
    }
  }
}
