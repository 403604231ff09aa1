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
 * Reads never block delivery: both levels are concurrent sorted maps.
 */
public final class InventorySink implements Sink, InventoryView {

  private final String name;
  private final ConcurrentSkipListMap<String, ConcurrentSkipListMap<String, Record>> byTarget =
      new ConcurrentSkipListMap<>();

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
        ConcurrentSkipListMap<String, Record> records = byTarget.get(target);
        if (records != null) {
          records.remove(r.key());
          if (records.isEmpty()) {
            byTarget.remove(target, records);
          }
        }
      } else {
        byTarget.computeIfAbsent(target, t -> new ConcurrentSkipListMap<>()).put(r.key(), r);
      }
    }
  }

  @Override
  public List<Record> query(InventoryQuery query) {
    Objects.requireNonNull(query, "query");
    NavigableMap<String, ConcurrentSkipListMap<String, Record>> targets = byTarget;
    if (query.target() != null) {
      ConcurrentSkipListMap<String, Record> one = byTarget.get(query.target());
      if (one == null) {
        return List.of();
      }
      targets = new java.util.TreeMap<>(Map.of(query.target(), one));
    }
    List<Record> out = new ArrayList<>();
    for (ConcurrentSkipListMap<String, Record> records : targets.values()) {
      for (Record r : records.values()) {
        if (matches(query, r)) {
          out.add(r);
        }
      }
    }
    return out;
  }

  /** Number of records held for a target. */
  public int size(String target) {
    ConcurrentSkipListMap<String, Record> records = byTarget.get(target);
    return records == null ? 0 : records.size();
  }

  private static boolean matches(InventoryQuery q, Record r) {
    return (q.group() == null || q.group().equals(r.resource().group()))
        && (q.kind() == null || q.kind().equals(r.resource().kind()))
        && (q.namespace() == null || q.namespace().equals(r.namespace()))
        && (q.name() == null || q.name().equals(r.name()))
        && (q.cluster() == null || q.cluster().equals(r.cluster()));
  }
}
