package io.kollect.extract;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Hands out one instance per distinct key array (same keys, same order), for the key arrays that
 * repeat across every record of a profile rule (its field names). Bounded as {@link StringPool}
 * is: past {@code capacity} distinct arrays it stops pooling and returns its argument, so keys that
 * do not repeat cost no more than before and the pool never grows without limit.
 *
 * <p>Arrays given to it must never be changed afterwards: a pooled array is shared by every map
 * that gets it back.
 */
final class KeyArrayPool {

  /** Keyed by a list view of the pooled array itself: equal by content, no second copy. */
  private final ConcurrentHashMap<List<String>, String[]> pool = new ConcurrentHashMap<>();
  private final int capacity;

  KeyArrayPool(int capacity) {
    this.capacity = capacity;
  }

  String[] intern(String[] keys) {
    List<String> key = Arrays.asList(keys);
    String[] pooled = pool.get(key);
    if (pooled != null) {
      return pooled;
    }
    if (pool.size() >= capacity) {
      return keys;
    }
    pooled = pool.putIfAbsent(key, keys);
    return pooled == null ? keys : pooled;
  }
}
