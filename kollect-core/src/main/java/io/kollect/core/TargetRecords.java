package io.kollect.core;

import io.kollect.extract.CompiledProfile;
import io.kollect.extract.Record;
import io.kollect.informers.ResourceType;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.BiConsumer;

/**
 * What a target currently holds: per object in scope, the {@code resourceVersion} and projection
 * it was extracted under and what extraction gave (the record, or why it failed). One map is the
 * memo (an unchanged object is not extracted again), the desired export set (its records) and the
 * source of the target's counts and extraction errors.
 *
 * <p>Why one map: the engine used to keep a memo, the desired set rebuilt per reconcile and the
 * hashes last exported, three maps of the same keys. Here every change is applied in O(1) (plus
 * O(log e) for the e failing objects), the per-type counts and the sorted errors are maintained as
 * entries change, so a status after a delta costs O(types + error samples), never O(objects). The
 * records held here are the very instances the exporter and the inventory view hold.
 *
 * <p>An entry is reusable for one compiled profile and one projection of its type: the informer
 * cache keeps only the fields the leases ask for, so the same {@code resourceVersion} looks
 * different under another projection. {@link Stamp} bundles the three; entries share one stamp
 * instance per type.
 *
 * <p>Entries are held by type, namespace and name, the object's own strings, rather than under
 * an {@link ObjectKey} per object: the map lives as long as the objects, and a key object per
 * entry would cost 24 bytes each. Keys are made for a caller's walk only ({@link #forEachEntry}).
 *
 * <p>Not thread-safe: used under the target's monitor.
 */
final class TargetRecords {

  /**
   * Under what an entry was extracted: a profile version and the projection of the type (the one
   * the engine requests, {@link RequestedProjections#version}, and the one the cache holds).
   */
  record Stamp(CompiledProfile profile, long requested, long cached) {}

  /**
   * One object's state.
   *
   * @param resourceVersion the version extracted ({@code null}: never reused)
   * @param stamp what it was extracted under
   * @param outcome the {@link Record}, the error message ({@code String}) or {@code null} when the
   *     object yields no record
   */
  record Entry(String resourceVersion, Stamp stamp, Object outcome) {
    Record record() {
      return outcome instanceof Record r ? r : null;
    }

    String error() {
      return outcome instanceof String s ? s : null;
    }

    /** Whether this entry stands for the object at {@code rv} read under {@code stamp}. */
    boolean matches(String rv, Stamp stamp) {
      return rv != null && rv.equals(resourceVersion) && this.stamp.equals(stamp);
    }
  }

  static final Comparator<ObjectKey> ERROR_ORDER = Comparator
      .comparing((ObjectKey k) -> k.type().toString())
      .thenComparing(k -> k.namespace() == null ? "" : k.namespace())
      .thenComparing(ObjectKey::name);

  /** Type → namespace ({@code ""} for cluster-scoped objects) → name → entry. */
  private final HashMap<ResourceType, HashMap<String, HashMap<String, Entry>>> entries =
      new HashMap<>();
  private int entryCount;
  private final Map<ResourceType, int[]> counts = new HashMap<>();
  private final TreeMap<ObjectKey, String> errors = new TreeMap<>(ERROR_ORDER);
  private final Map<ResourceType, Stamp> stamps = new HashMap<>();
  private int records;
  private long extractions;

  /** The one shared stamp instance for {@code type} under these versions. */
  Stamp stamp(ResourceType type, CompiledProfile profile, long requested, long cached) {
    Stamp s = stamps.get(type);
    if (s == null || s.profile() != profile || s.requested() != requested
        || s.cached() != cached) {
      s = new Stamp(profile, requested, cached);
      stamps.put(type, s);
    }
    return s;
  }

  Entry get(ObjectKey key) {
    HashMap<String, HashMap<String, Entry>> byNamespace = entries.get(key.type());
    HashMap<String, Entry> names = byNamespace == null ? null
        : byNamespace.get(namespaceOf(key));
    return names == null ? null : names.get(key.name());
  }

  private static String namespaceOf(ObjectKey key) {
    return key.namespace() == null ? "" : key.namespace();
  }

  /**
   * Sets the entry of {@code key} ({@code null} removes it) and returns the one it replaced;
   * counts and errors follow.
   */
  Entry put(ObjectKey key, Entry entry) {
    Entry old = entry == null ? remove(key) : entries
        .computeIfAbsent(key.type(), t -> new HashMap<>())
        .computeIfAbsent(namespaceOf(key), ns -> new HashMap<>())
        .put(key.name(), entry);
    if (entry != null && old == null) {
      entryCount++;
    }
    if (old != null) {
      account(key, old, -1);
    }
    if (entry != null) {
      account(key, entry, +1);
    }
    return old;
  }

  private Entry remove(ObjectKey key) {
    HashMap<String, HashMap<String, Entry>> byNamespace = entries.get(key.type());
    if (byNamespace == null) {
      return null;
    }
    String namespace = namespaceOf(key);
    HashMap<String, Entry> names = byNamespace.get(namespace);
    Entry old = names == null ? null : names.remove(key.name());
    if (old != null) {
      entryCount--;
      if (names.isEmpty()) {
        byNamespace.remove(namespace);
        if (byNamespace.isEmpty()) {
          entries.remove(key.type());
        }
      }
    }
    return old;
  }

  private void account(ObjectKey key, Entry e, int delta) {
    if (e.outcome() instanceof Record) {
      counts.computeIfAbsent(key.type(), t -> new int[1])[0] += delta;
      records += delta;
    } else if (e.outcome() instanceof String error) {
      if (delta > 0) {
        errors.put(key, error);
      } else {
        errors.remove(key);
      }
    }
  }

  /** Counts an extraction (a memo miss). */
  void extracted() {
    extractions++;
  }

  /** How many objects were actually extracted so far (for tests and the benchmark). */
  long extractions() {
    return extractions;
  }

  /** Number of records (objects that yield one). */
  int size() {
    return records;
  }

  /** Records of {@code type}. */
  int count(ResourceType type) {
    int[] c = counts.get(type);
    return c == null ? 0 : c[0];
  }

  /** Types that have or had records, with their counts. */
  void forEachCount(BiConsumer<ResourceType, Integer> action) {
    counts.forEach((t, c) -> action.accept(t, c[0]));
  }

  /** The current records (a view; O(objects) to walk, for full passes only). */
  Collection<Record> records() {
    List<Record> out = new ArrayList<>(records);
    for (HashMap<String, HashMap<String, Entry>> byNamespace : entries.values()) {
      for (HashMap<String, Entry> names : byNamespace.values()) {
        for (Entry e : names.values()) {
          if (e.outcome() instanceof Record r) {
            out.add(r);
          }
        }
      }
    }
    return out;
  }

  /** Number of entries (objects with a record, an error or neither). */
  int entryCount() {
    return entryCount;
  }

  /** Hands every entry with its key to {@code action}: O(objects), for full passes only. */
  void forEachEntry(BiConsumer<ObjectKey, Entry> action) {
    entries.forEach((type, byNamespace) -> byNamespace.forEach((namespace, names) -> {
      String ns = namespace.isEmpty() ? null : namespace;
      names.forEach((name, e) -> action.accept(new ObjectKey(type, ns, name), e));
    }));
  }

  int errorCount() {
    return errors.size();
  }

  /** The first {@code n} failing objects, ordered by type, namespace and name. */
  List<ExtractionError> errorSamples(int n) {
    List<ExtractionError> out = new ArrayList<>(Math.min(n, errors.size()));
    for (Map.Entry<ObjectKey, String> e : errors.entrySet()) {
      if (out.size() == n) {
        break;
      }
      ObjectKey k = e.getKey();
      out.add(new ExtractionError(k.type().toString(), k.namespace(), k.name(), e.getValue()));
    }
    return out;
  }

  /** Forgets everything (the target is removed). */
  void clear() {
    entries.clear();
    entryCount = 0;
    counts.clear();
    errors.clear();
    stamps.clear();
    records = 0;
  }

  @Override
  public String toString() {
    return "TargetRecords[" + records + " records, " + errors.size() + " errors]";
  }

  static boolean sameContent(Record a, Record b) {
    return a == b || (a != null && b != null && Objects.equals(a.hash(), b.hash()));
  }
}
