package io.kollect.informers;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * An immutable map of a few entries in two arrays, for what the projection store keeps of each
 * object: no hash table and no entry object per key (a two-key {@code data} map costs 48 bytes
 * instead of 128 in a {@code TreeMap}), and the keys array is shared by every object whose map
 * holds the same keys (the keys come from the projection's path tree). Iterates in the order
 * built (the path tree's, which is sorted, as the API server sends keys). Lookups are a linear
 * scan: these maps hold a handful of keys.
 */
final class CompactMap extends AbstractMap<String, Object> {

  private final String[] keys;
  private final Object[] values;

  /** {@code keys} is not copied: callers share one array between maps with the same keys. */
  CompactMap(String[] keys, Object[] values) {
    this.keys = keys;
    this.values = values;
  }

  /** The keys, not copied: for a holder that keeps the arrays instead of the map. */
  String[] keyArray() {
    return keys;
  }

  /** The values, not copied: for a holder that keeps the arrays instead of the map. */
  Object[] valueArray() {
    return values;
  }

  @Override
  public int size() {
    return keys.length;
  }

  @Override
  public Object get(Object key) {
    for (int i = 0; i < keys.length; i++) {
      if (keys[i].equals(key)) {
        return values[i];
      }
    }
    return null;
  }

  @Override
  public boolean containsKey(Object key) {
    for (String k : keys) {
      if (k.equals(key)) {
        return true;
      }
    }
    return false;
  }

  /** Not cached in the map (as {@code AbstractMap} would): no view object per cached map. */
  @Override
  public java.util.Collection<Object> values() {
    return java.util.Collections.unmodifiableList(Arrays.asList(values));
  }

  @Override
  public Set<Entry<String, Object>> entrySet() {
    return new AbstractSet<>() {
      @Override
      public int size() {
        return keys.length;
      }

      @Override
      public Iterator<Entry<String, Object>> iterator() {
        return new Iterator<>() {
          private int next;

          @Override
          public boolean hasNext() {
            return next < keys.length;
          }

          @Override
          public Entry<String, Object> next() {
            if (next >= keys.length) {
              throw new NoSuchElementException();
            }
            int i = next++;
            return new SimpleImmutableEntry<>(keys[i], values[i]);
          }
        };
      }
    };
  }

  @Override
  public String toString() {
    return "CompactMap" + Arrays.toString(keys);
  }
}
