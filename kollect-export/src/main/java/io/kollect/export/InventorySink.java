package io.kollect.export;

import io.kollect.extract.Op;
import io.kollect.extract.Record;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * Keeps the current records of every target in memory and answers queries over them (the operator
 * serves this view over HTTP). An UPSERT replaces the record of its key, a DELETE removes it.
 * Reads never block delivery: every level is a concurrent sorted map.
 *
 * <p>Records are held by target, then by type and namespace (the text {@code
 * group/kind/namespace/}, one per type and namespace), then by name, the record's own string: the
 * view holds as many records as there are objects, and a key object or a concatenated key per
 * record would cost more than the map node.
 * The order is that of their {@link Record#key()} strings: a prefix {@code group/kind/namespace/}
 * holds exactly three separators and no segment holds one, so two different prefixes differ before
 * either ends, and records of one prefix are ordered by name.
 */
public final class InventorySink implements Sink, InventoryView {

  private final String name;
  private final ConcurrentSkipListMap<String, ConcurrentSkipListMap<String, ConcurrentSkipListMap<String, Record>>>
      byTarget = new ConcurrentSkipListMap<>();

  /**
   * A record's type and namespace as the text {@code group/kind/namespace/}: one instance per type
   * and namespace is held (the first a map put kept); the one made per write is garbage at once.
   */
  private static String prefixOf(Record r) {
    return r.resource().group() + "/" + r.resource().kind() + "/"
        + (r.namespace() == null ? "" : r.namespace()) + "/";
  }

  public InventorySink(String name) {
    this.name = Objects.requireNonNull(name, "name");
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void write(List<Record> batch) {
    for (Record r : batch) {
      String target = r.target() == null ? "" : r.target();
      if (r.op() == Op.DELETE) {
        var prefixes = byTarget.get(target);
        if (prefixes == null) {
          continue;
        }
        String prefix = prefixOf(r);
        ConcurrentSkipListMap<String, Record> names = prefixes.get(prefix);
        if (names != null) {
          names.remove(r.name());
          if (names.isEmpty()) {
            prefixes.remove(prefix, names);
          }
        }
        if (prefixes.isEmpty()) {
          byTarget.remove(target, prefixes);
        }
      } else {
        byTarget.computeIfAbsent(target, t -> new ConcurrentSkipListMap<>())
            .computeIfAbsent(prefixOf(r), p -> new ConcurrentSkipListMap<>())
            .put(r.name(), r);
      }
    }
  }

  @Override
  public List<Record> query(InventoryQuery query) {
    Objects.requireNonNull(query, "query");
    NavigableMap<String, ConcurrentSkipListMap<String, ConcurrentSkipListMap<String, Record>>> targets =
        byTarget;
    if (query.target() != null) {
      var one = byTarget.get(query.target());
      if (one == null) {
        return List.of();
      }
      targets = new java.util.TreeMap<>(Map.of(query.target(), one));
    }
    List<Record> out = new ArrayList<>();
    for (var prefixes : targets.values()) {
      for (ConcurrentSkipListMap<String, Record> names : prefixes.values()) {
        for (Record r : names.values()) {
          if (matches(query, r)) {
            out.add(r);
          }
        }
      }
    }
    return out;
  }

  /** Number of records held for a target: O(types and namespaces of the target). */
  public int size(String target) {
    var prefixes = byTarget.get(target);
    if (prefixes == null) {
      return 0;
    }
    int n = 0;
    for (ConcurrentSkipListMap<String, Record> names : prefixes.values()) {
      n += names.size();
    }
    return n;
  }

  private static boolean matches(InventoryQuery q, Record r) {
    return (q.group() == null || q.group().equals(r.resource().group()))
        && (q.kind() == null || q.kind().equals(r.resource().kind()))
        && (q.namespace() == null || q.namespace().equals(r.namespace()))
        && (q.name() == null || q.name().equals(r.name()))
        && (q.cluster() == null || q.cluster().equals(r.cluster()));
  }
}
