package io.kollect.extract;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Hands out one instance per distinct string, for the few strings that repeat across every record
 * of a profile (namespaces). Bounded: past {@code capacity} distinct strings it stops pooling and
 * returns its argument, so a cluster with an unusual number of namespaces costs no more than
 * before, and the pool never grows without limit.
 */
final class StringPool {

  private final ConcurrentHashMap<String, String> pool = new ConcurrentHashMap<>();
  private final int capacity;

  StringPool(int capacity) {
    this.capacity = capacity;
  }

  String intern(String s) {
    String pooled = pool.get(s);
    if (pooled != null) {
      return pooled;
    }
    if (pool.size() >= capacity) {
      return s;
    }
    pooled = pool.putIfAbsent(s, s);
    return pooled == null ? s : pooled;
  }
}
