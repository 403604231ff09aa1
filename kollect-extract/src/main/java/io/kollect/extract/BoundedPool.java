package io.kollect.extract;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Hands out one instance per distinct key, for values that repeat across every record of a
 * profile (namespaces, the field names of a rule). Bounded: past {@code capacity} distinct keys it
 * stops pooling and returns the value it was given, so values that do not repeat cost no more than
 * without the pool, and the pool never grows without limit.
 *
 * <p>A pooled value is shared by everyone who gets it back: it must never be changed.
 *
 * @param <K> what makes two values the same (the value itself, or a view of it)
 * @param <V> the pooled value
 */
final class BoundedPool<K, V> {

  private final ConcurrentHashMap<K, V> pool = new ConcurrentHashMap<>();
  private final int capacity;

  BoundedPool(int capacity) {
    this.capacity = capacity;
  }

  /** The pooled instance for {@code key}, pooling {@code value} for it if there is room. */
  V intern(K key, V value) {
    V pooled = pool.get(key);
    if (pooled != null) {
      return pooled;
    }
    if (pool.size() >= capacity) {
      return value;
    }
    pooled = pool.putIfAbsent(key, value);
    return pooled == null ? value : pooled;
  }
}
