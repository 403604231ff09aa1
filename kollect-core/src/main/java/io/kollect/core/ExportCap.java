package io.kollect.core;

import io.kollect.extract.Record;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A target's hard cap ({@link TargetSpec#maxObjects()}): of its records, only the first {@code
 * max} by record key ({@code group/kind/namespace/name}, string order) are exported and shown in
 * the inventory; the rest are left out. Key order makes the kept set a function of the objects
 * alone, so it is the same after a restart and on every replica (and, sharded or per cluster,
 * per unit).
 *
 * <p>Two sorted maps, kept and left out, make a delta O(changes × log objects): an object that
 * enters below the boundary pushes the last kept one out (a DELETE downstream), one that leaves
 * the kept set pulls the first left-out one in (an UPSERT). {@link #apply} gives the net change
 * per key, so a key pushed out and pulled back in one pass is no change. A full pass rebuilds the
 * cap from the whole set ({@link #full}), O(objects log objects), like the rest of a full pass.
 *
 * <p>Not thread-safe: used under the target's monitor.
 */
final class ExportCap {

  final int max;
  private final TreeMap<String, Record> kept = new TreeMap<>();
  private final TreeMap<String, Record> leftOut = new TreeMap<>();

  private ExportCap(int max) {
    this.max = Math.max(0, max);
  }

  static ExportCap of(Collection<Record> records, int max) {
    ExportCap cap = new ExportCap(max);
    TreeMap<String, Record> all = new TreeMap<>();
    for (Record r : records) {
      all.put(r.key(), r);
    }
    for (Map.Entry<String, Record> e : all.entrySet()) {
      (cap.kept.size() < cap.max ? cap.kept : cap.leftOut).put(e.getKey(), e.getValue());
    }
    return cap;
  }

  /** The records exported. */
  Collection<Record> kept() {
    return kept.values();
  }

  /** How many records are left out. */
  int leftOutCount() {
    return leftOut.size();
  }

  /** Applies a delta of the whole set; returns the delta of the kept set. */
  RecordChanges apply(RecordChanges changes) {
    Map<String, Record> initial = new LinkedHashMap<>();
    for (Record r : changes.removed) {
      String key = r.key();
      touch(initial, key);
      if (kept.remove(key) != null) {
        if (!leftOut.isEmpty()) {
          Map.Entry<String, Record> first = leftOut.pollFirstEntry();
          touch(initial, first.getKey());
          kept.put(first.getKey(), first.getValue());
        }
      } else {
        leftOut.remove(key);
      }
    }
    for (Record r : changes.upserts) {
      String key = r.key();
      touch(initial, key);
      if (kept.containsKey(key)) {
        kept.put(key, r);
      } else if (leftOut.containsKey(key)) {
        leftOut.put(key, r);
      } else if (kept.size() < max) {
        kept.put(key, r);
      } else if (max > 0 && key.compareTo(kept.lastKey()) < 0) {
        touch(initial, kept.lastKey());
        Map.Entry<String, Record> last = kept.pollLastEntry();
        leftOut.put(last.getKey(), last.getValue());
        kept.put(key, r);
      } else {
        leftOut.put(key, r);
      }
    }
    RecordChanges out = new RecordChanges();
    for (Map.Entry<String, Record> e : initial.entrySet()) {
      Record before = e.getValue();
      Record now = kept.get(e.getKey());
      if (now != null && now != before) {
        out.upserts.add(now);
      } else if (now == null && before != null) {
        out.removed.add(before);
      }
    }
    return out;
  }

  private void touch(Map<String, Record> initial, String key) {
    if (!initial.containsKey(key)) {
      initial.put(key, kept.get(key));
    }
  }

  /** Whether the target's cap state does not match its spec (set, changed or lifted). */
  static boolean stale(TargetRuntime rt) {
    Integer max = rt.definition.spec().maxObjects();
    return max == null ? rt.cap != null : rt.cap == null || rt.cap.max != Math.max(0, max);
  }

  /**
   * What a full pass hands over: the changes for the inventory view and the set to converge the
   * sinks to, both capped when the target has a cap. Rebuilds {@code rt.cap} from the target's
   * records.
   *
   * @param changes the pass's changes of the whole set
   * @param all the whole set to converge to (empty when not exporting)
   */
  static Handed full(TargetRuntime rt, RecordChanges changes, Collection<Record> all) {
    Integer max = rt.definition.spec().maxObjects();
    ExportCap old = rt.cap;
    if (max == null && old == null) {
      return new Handed(changes, all);
    }
    Collection<Record> current = rt.records.records();
    ExportCap next = max == null ? null : ExportCap.of(current, max);
    rt.cap = next;
    RecordChanges view = new RecordChanges();
    if (old != null && next != null) {
      for (Record r : next.kept.values()) {
        if (old.kept.get(r.key()) != r) {
          view.upserts.add(r);
        }
      }
      for (Record r : old.kept.values()) {
        if (!next.kept.containsKey(r.key())) {
          view.removed.add(r);
        }
      }
    } else {
      // The cap was set or lifted: write the new view whole, remove what it no longer holds.
      Collection<Record> shown = next == null ? current : next.kept.values();
      view.upserts.addAll(shown);
      Set<String> shownKeys = new HashSet<>();
      for (Record r : shown) {
        shownKeys.add(r.key());
      }
      Map<String, Record> before = new HashMap<>();
      for (Record r : old == null ? current : old.kept.values()) {
        before.put(r.key(), r);
      }
      for (Record r : changes.removed) {
        before.putIfAbsent(r.key(), r);
      }
      for (Record r : before.values()) {
        if (!shownKeys.contains(r.key())) {
          view.removed.add(r);
        }
      }
    }
    Collection<Record> export = all.isEmpty() || next == null ? all
        : new ArrayList<>(next.kept.values());
    return new Handed(view, export);
  }

  /** What a full pass hands over. */
  record Handed(RecordChanges view, Collection<Record> export) {}
}
