package io.kollect.extract;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;

/**
 * The read-only, insertion-ordered map a {@link Record} holds: its keys and values in two arrays.
 *
 * <p>Why not {@code Collections.unmodifiableMap(new LinkedHashMap<>(m))}: an inventory holds one
 * record per object for as long as the object exists, and a record's maps are small (a few fields,
 * a label or two). A {@code LinkedHashMap} of two entries with its wrapper costs about 230 bytes;
 * two arrays cost about 60. Lookups scan the keys, which for a handful of entries is as fast as
 * hashing; the maps are mostly iterated (serialisation, hashing), which arrays do best. Only this
 * package can create one, so a record can reuse a frozen map of another record without copying.
 */
final class FrozenMap<V> extends AbstractMap<String, V> {

  private final String[] keys;
  private final Object[] values;

  private FrozenMap(String[] keys, Object[] values) {
    this.keys = keys;
    this.values = values;
  }

  /**
   * A frozen copy of {@code source} in its iteration order; {@code source} itself when it is
   * already frozen, the shared empty map when it is empty or {@code null}.
   */
  static <V> Map<String, V> of(Map<String, V> source) {
    if (source == null || source.isEmpty()) {
      return Map.of();
    }
    if (source instanceof FrozenMap<V> frozen) {
      return frozen;
    }
    // LinkedHashMap first: it rejects nothing, keeps the order, and collapses duplicate keys that a
    // caller's exotic map might report twice
    Map<String, V> ordered = source instanceof LinkedHashMap<String, V> lhm ? lhm
        : new LinkedHashMap<>(source);
    String[] keys = new String[ordered.size()];
    Object[] values = new Object[ordered.size()];
    int i = 0;
    for (Map.Entry<String, V> e : ordered.entrySet()) {
      keys[i] = Objects.requireNonNull(e.getKey(), "map key");
      values[i] = e.getValue();
      i++;
    }
    return new FrozenMap<>(keys, values);
  }

  @Override
  public int size() {
    return keys.length;
  }

  @Override
  public boolean containsKey(Object key) {
    return indexOf(key) >= 0;
  }

  @Override
  @SuppressWarnings("unchecked")
  public V get(Object key) {
    int i = indexOf(key);
    return i < 0 ? null : (V) values[i];
  }

  private int indexOf(Object key) {
    for (int i = 0; i < keys.length; i++) {
      if (keys[i].equals(key)) {
        return i;
      }
    }
    return -1;
  }

  @Override
  public Set<Map.Entry<String, V>> entrySet() {
    return new AbstractSet<>() {
      @Override
      public int size() {
        return keys.length;
      }

      @Override
      public Iterator<Map.Entry<String, V>> iterator() {
        return new Iterator<>() {
          private int next;

          @Override
          public boolean hasNext() {
            return next < keys.length;
          }

          @Override
          @SuppressWarnings("unchecked")
          public Map.Entry<String, V> next() {
            if (next >= keys.length) {
              throw new NoSuchElementException();
            }
            int i = next++;
            return new SimpleImmutableEntry<>(keys[i], (V) values[i]);
          }
        };
      }
    };
  }
}
