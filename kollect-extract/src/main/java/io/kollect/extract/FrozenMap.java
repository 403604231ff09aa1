package io.kollect.extract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.AbstractCollection;
import java.util.AbstractMap.SimpleImmutableEntry;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * The read-only, insertion-ordered map a {@link Record} holds: its keys and values in two arrays.
 *
 * <p>Why not {@code Collections.unmodifiableMap(new LinkedHashMap<>(m))}: an inventory holds one
 * record per object for as long as the object exists, and a record's maps are small (a few fields,
 * a label or two). A {@code LinkedHashMap} of two entries with its wrapper costs about 230 bytes;
 * this map costs 24 bytes plus its value array. Lookups scan the keys, which for a handful of
 * entries is as fast as hashing; the maps are mostly iterated (serialisation, hashing), which
 * arrays do best. Only this package can create one, so a record can reuse a frozen map of another
 * record without copying.
 *
 * <p>A record's {@code fields} map ({@link #ofFields}) is held leaner still, because every
 * inventoried object keeps one:
 *
 * <ul>
 *   <li>its key array is shared by every fields map with the same names in the same order (the
 *       records of one profile rule), through a bounded table: the names come from profiles, so
 *       there are few distinct lists, and past the bound a map simply keeps its own array;
 *   <li>a text value is held as its {@code String} and handed out as a new {@link TextNode} on
 *       every read (lookup, iteration, printing): a short-lived allocation on a path that
 *       serialises or hashes anyway, instead of 16 retained bytes per value. Nodes of other kinds
 *       are held as they are.
 * </ul>
 *
 * <p>It implements {@link Map} itself rather than extending {@code AbstractMap}, whose two cached
 * view fields would cost every held map 8 bytes for views that are rarely asked for; {@code
 * equals}, {@code hashCode} and {@code toString} follow the {@link Map} contract exactly as {@code
 * AbstractMap} does, so a frozen map equals, hashes and prints as the map it was copied from.
 */
final class FrozenMap<V> implements Map<String, V> {

  /** Keyed by a list view of the pooled array itself: equal by content, no second copy. */
  private static final BoundedPool<List<String>, String[]> FIELD_NAMES = new BoundedPool<>(1_024);

  private final String[] keys;
  /** The values; for a fields map, a {@code String} stands for the {@link TextNode} of it. */
  private final Object[] values;
  private final boolean textAsNodes;

  private FrozenMap(String[] keys, Object[] values, boolean textAsNodes) {
    this.keys = keys;
    this.values = values;
    this.textAsNodes = textAsNodes;
  }

  /**
   * A frozen copy of {@code source} in its iteration order; {@code source} itself when it is
   * already frozen, the shared empty map when it is empty or {@code null}.
   */
  static <V> Map<String, V> of(Map<String, V> source) {
    return copy(source, false);
  }

  /**
   * A frozen copy of a record's fields, as {@link #of} but held the lean way: the key array shared
   * with every fields map of the same names, text values held as their strings.
   */
  static Map<String, JsonNode> ofFields(Map<String, JsonNode> source) {
    return copy(source, true);
  }

  private static <V> Map<String, V> copy(Map<String, V> source, boolean fields) {
    if (source == null || source.isEmpty()) {
      return Map.of();
    }
    if (source instanceof FrozenMap<V> frozen && frozen.textAsNodes == fields) {
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
      V v = e.getValue();
      // exactly TextNode: a subclass may carry more than its text, so it is kept as it is
      values[i] = fields && v != null && v.getClass() == TextNode.class
          ? ((TextNode) v).textValue() : v;
      i++;
    }
    return new FrozenMap<>(fields ? FIELD_NAMES.intern(Arrays.asList(keys), keys) : keys, values, fields);
  }

  /** The key array as held (shared between fields maps of the same names). */
  String[] heldKeys() {
    return keys;
  }

  /** The value at {@code i} as held: for a fields map, a text value is its {@code String}. */
  Object heldValue(int i) {
    return values[i];
  }

  @SuppressWarnings("unchecked")
  private V valueAt(int i) {
    Object v = values[i];
    return (V) (textAsNodes && v instanceof String s ? TextNode.valueOf(s) : v);
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
  public int size() {
    return keys.length;
  }

  @Override
  public boolean isEmpty() {
    return keys.length == 0;
  }

  @Override
  public boolean containsKey(Object key) {
    return indexOf(key) >= 0;
  }

  @Override
  public boolean containsValue(Object value) {
    for (int i = 0; i < keys.length; i++) {
      if (Objects.equals(valueAt(i), value)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public V get(Object key) {
    int i = indexOf(key);
    return i < 0 ? null : valueAt(i);
  }

  @Override
  public void forEach(BiConsumer<? super String, ? super V> action) {
    for (int i = 0; i < keys.length; i++) {
      action.accept(keys[i], valueAt(i));
    }
  }

  @Override
  public V put(String key, V value) {
    throw new UnsupportedOperationException("a record's maps are read-only");
  }

  @Override
  public V remove(Object key) {
    throw new UnsupportedOperationException("a record's maps are read-only");
  }

  @Override
  public void putAll(Map<? extends String, ? extends V> m) {
    throw new UnsupportedOperationException("a record's maps are read-only");
  }

  @Override
  public void clear() {
    throw new UnsupportedOperationException("a record's maps are read-only");
  }

  @Override
  public Set<String> keySet() {
    return new AbstractSet<>() {
      @Override
      public int size() {
        return keys.length;
      }

      @Override
      public boolean contains(Object o) {
        return indexOf(o) >= 0;
      }

      @Override
      public Iterator<String> iterator() {
        return new Cursor<>() {
          @Override
          String at(int i) {
            return keys[i];
          }
        };
      }
    };
  }

  @Override
  public Collection<V> values() {
    return new AbstractCollection<>() {
      @Override
      public int size() {
        return keys.length;
      }

      @Override
      public Iterator<V> iterator() {
        return new Cursor<>() {
          @Override
          V at(int i) {
            return valueAt(i);
          }
        };
      }
    };
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
        return new Cursor<>() {
          @Override
          Map.Entry<String, V> at(int i) {
            return new SimpleImmutableEntry<>(keys[i], valueAt(i));
          }
        };
      }
    };
  }

  /** Walks the positions in order; the views say what each position gives. */
  private abstract class Cursor<T> implements Iterator<T> {
    private int next;

    abstract T at(int i);

    @Override
    public boolean hasNext() {
      return next < keys.length;
    }

    @Override
    public T next() {
      if (next >= keys.length) {
        throw new NoSuchElementException();
      }
      return at(next++);
    }
  }

  @Override
  public boolean equals(Object o) {
    if (o == this) {
      return true;
    }
    if (!(o instanceof Map<?, ?> m) || m.size() != keys.length) {
      return false;
    }
    if (o instanceof FrozenMap<?> f && f.keys == keys && f.textAsNodes == textAsNodes
        && Arrays.equals(f.values, values)) {
      return true; // same names, same held values: no node needs to be made to tell
    }
    try {
      for (int i = 0; i < keys.length; i++) {
        V v = valueAt(i);
        Object other = m.get(keys[i]);
        if (v == null ? other != null || !m.containsKey(keys[i]) : !v.equals(other)) {
          return false;
        }
      }
    } catch (ClassCastException | NullPointerException notKeyedByStrings) {
      return false; // as AbstractMap answers for a map that cannot be asked for these keys
    }
    return true;
  }

  /** The {@link Map} contract's sum of entry hashes; a text node hashes as its text does. */
  @Override
  public int hashCode() {
    int h = 0;
    for (int i = 0; i < keys.length; i++) {
      h += keys[i].hashCode() ^ Objects.hashCode(values[i]);
    }
    return h;
  }

  /** {@code {key=value, ...}}, as {@code AbstractMap} prints. */
  @Override
  public String toString() {
    StringBuilder out = new StringBuilder("{");
    for (int i = 0; i < keys.length; i++) {
      out.append(i == 0 ? "" : ", ").append(keys[i]).append('=').append(valueAt(i));
    }
    return out.append('}').toString();
  }
}
