package io.vcorfu.collections.internal;

import java.util.Collection;
import java.util.Comparator;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.Set;
import java.util.SortedMap;

/**
 * A {@link NavigableMap} that forwards every call to {@link #delegate()}: the one place the
 * java.util surface of vcorfu's sorted maps is spelled out.
 */
public abstract class ForwardingNavigableMap<K, V> implements NavigableMap<K, V> {
  /** The map every call goes to. */
  protected abstract NavigableMap<K, V> delegate();

  @Override
  public int size() {
    return delegate().size();
  }

  @Override
  public boolean isEmpty() {
    return delegate().isEmpty();
  }

  @Override
  public boolean containsKey(Object key) {
    return delegate().containsKey(key);
  }

  @Override
  public boolean containsValue(Object value) {
    return delegate().containsValue(value);
  }

  @Override
  public V get(Object key) {
    return delegate().get(key);
  }

  @Override
  public V put(K key, V value) {
    return delegate().put(key, value);
  }

  @Override
  public V remove(Object key) {
    return delegate().remove(key);
  }

  @Override
  public void putAll(Map<? extends K, ? extends V> m) {
    delegate().putAll(m);
  }

  @Override
  public void clear() {
    delegate().clear();
  }

  @Override
  public Comparator<? super K> comparator() {
    return null;
  }

  @Override
  public K firstKey() {
    return delegate().firstKey();
  }

  @Override
  public K lastKey() {
    return delegate().lastKey();
  }

  @Override
  public Map.Entry<K, V> firstEntry() {
    return delegate().firstEntry();
  }

  @Override
  public Map.Entry<K, V> lastEntry() {
    return delegate().lastEntry();
  }

  @Override
  public Map.Entry<K, V> pollFirstEntry() {
    return delegate().pollFirstEntry();
  }

  @Override
  public Map.Entry<K, V> pollLastEntry() {
    return delegate().pollLastEntry();
  }

  @Override
  public Map.Entry<K, V> lowerEntry(K key) {
    return delegate().lowerEntry(key);
  }

  @Override
  public K lowerKey(K key) {
    return delegate().lowerKey(key);
  }

  @Override
  public Map.Entry<K, V> floorEntry(K key) {
    return delegate().floorEntry(key);
  }

  @Override
  public K floorKey(K key) {
    return delegate().floorKey(key);
  }

  @Override
  public Map.Entry<K, V> ceilingEntry(K key) {
    return delegate().ceilingEntry(key);
  }

  @Override
  public K ceilingKey(K key) {
    return delegate().ceilingKey(key);
  }

  @Override
  public Map.Entry<K, V> higherEntry(K key) {
    return delegate().higherEntry(key);
  }

  @Override
  public K higherKey(K key) {
    return delegate().higherKey(key);
  }

  @Override
  public NavigableMap<K, V> descendingMap() {
    return delegate().descendingMap();
  }

  @Override
  public NavigableSet<K> navigableKeySet() {
    return delegate().navigableKeySet();
  }

  @Override
  public NavigableSet<K> descendingKeySet() {
    return delegate().descendingKeySet();
  }

  @Override
  public Set<K> keySet() {
    return delegate().keySet();
  }

  @Override
  public Collection<V> values() {
    return delegate().values();
  }

  @Override
  public Set<Map.Entry<K, V>> entrySet() {
    return delegate().entrySet();
  }

  @Override
  public NavigableMap<K, V> subMap(K fromKey, boolean fromInclusive, K toKey, boolean toInclusive) {
    return delegate().subMap(fromKey, fromInclusive, toKey, toInclusive);
  }

  @Override
  public NavigableMap<K, V> headMap(K toKey, boolean inclusive) {
    return delegate().headMap(toKey, inclusive);
  }

  @Override
  public NavigableMap<K, V> tailMap(K fromKey, boolean inclusive) {
    return delegate().tailMap(fromKey, inclusive);
  }

  @Override
  public SortedMap<K, V> subMap(K fromKey, K toKey) {
    return delegate().subMap(fromKey, toKey);
  }

  @Override
  public SortedMap<K, V> headMap(K toKey) {
    return delegate().headMap(toKey);
  }

  @Override
  public SortedMap<K, V> tailMap(K fromKey) {
    return delegate().tailMap(fromKey);
  }

  /** Equal to any {@link Map} with the same mappings, as the delegate decides. */
  @Override
  public boolean equals(Object o) {
    return o == this || delegate().equals(o);
  }

  @Override
  public int hashCode() {
    return delegate().hashCode();
  }

  @Override
  public String toString() {
    return delegate().toString();
  }
}
