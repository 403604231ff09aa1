package io.kollect.export;

import io.kollect.extract.Op;
import io.kollect.extract.Record;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * Keeps the current records of every target in memory and answers queries over them (the operator
 * serves this view over HTTP). An UPSERT replaces the record of its key, a DELETE removes it.
 * Reads never block delivery: both levels are concurrent sorted maps.
 *
 * <p>Records are held under a {@link ViewKey} made of the record's own strings, ordered as their
 * {@link Record#key()} strings would be: the view holds as many records as there are objects, and
 * a concatenated key per record would cost more than the key object and its map node together.
 */
public final class InventorySink implements Sink, InventoryView {

  private final String name;
  private final ConcurrentSkipListMap<String, ConcurrentSkipListMap<ViewKey, Record>> byTarget =
      new ConcurrentSkipListMap<>();

  /**
   * A record's identity within its target, {@link Record#key()} without the concatenation: the
   * strings are the record's own (shared with the informer cache), so a key costs one small object.
   */
  private record ViewKey(String group, String kind, String namespace, String name) {
    static ViewKey of(Record r) {
      return new ViewKey(r.resource().group(), r.resource().kind(),
          r.namespace() == null ? "" : r.namespace(), r.name());
    }

    /**
     * The order of {@code group/kind/namespace/name} as one string, without building it. Leading
     * segments that are equal (mostly the same instances: one type, one namespace) and their
     * separators are a common prefix of both strings, so the walk starts at the first that is not.
     */
    static final Comparator<ViewKey> ORDER = (a, b) -> {
      int first = 0;
      while (first < 3 && a.segment(first).equals(b.segment(first))) {
        first++;
      }
      int sa = first;
      int ia = 0;
      int sb = first;
      int ib = 0;
      while (true) {
        int ca = a.charAt(sa, ia);
        int cb = b.charAt(sb, ib);
        if (ca != cb || ca < 0) {
          return Integer.compare(ca, cb);
        }
        if (ia < a.segment(sa).length()) {
          ia++;
        } else {
          sa++;
          ia = 0;
        }
        if (ib < b.segment(sb).length()) {
          ib++;
        } else {
          sb++;
          ib = 0;
        }
      }
    };

    private String segment(int s) {
      return switch (s) {
        case 0 -> group;
        case 1 -> kind;
        case 2 -> namespace;
        default -> name;
      };
    }

    /**
     * The character at position {@code i} of segment {@code s} of the joined key: the segment's
     * own, the separator {@code '/'} right after a segment (none after the last), or -1 at the end.
     */
    private int charAt(int s, int i) {
      String seg = segment(s);
      if (i < seg.length()) {
        return seg.charAt(i);
      }
      return s == 3 ? -1 : '/';
    }
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
        ConcurrentSkipListMap<ViewKey, Record> records = byTarget.get(target);
        if (records != null) {
          records.remove(ViewKey.of(r));
          if (records.isEmpty()) {
            byTarget.remove(target, records);
          }
        }
      } else {
        byTarget.computeIfAbsent(target, t -> new ConcurrentSkipListMap<>(ViewKey.ORDER))
            .put(ViewKey.of(r), r);
      }
    }
  }

  @Override
  public List<Record> query(InventoryQuery query) {
    Objects.requireNonNull(query, "query");
    NavigableMap<String, ConcurrentSkipListMap<ViewKey, Record>> targets = byTarget;
    if (query.target() != null) {
      ConcurrentSkipListMap<ViewKey, Record> one = byTarget.get(query.target());
      if (one == null) {
        return List.of();
      }
      targets = new java.util.TreeMap<>(Map.of(query.target(), one));
    }
    List<Record> out = new ArrayList<>();
    for (ConcurrentSkipListMap<ViewKey, Record> records : targets.values()) {
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
    ConcurrentSkipListMap<ViewKey, Record> records = byTarget.get(target);
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
