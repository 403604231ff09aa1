package io.kollect.core;

import io.kollect.extract.Record;
import java.util.ArrayList;
import java.util.List;

/**
 * What one pass changed in a target's records, as downstream sees it: records that are new or
 * whose content changed, and records that left. Applying an entry whose record has the content of
 * the one held keeps the held instance, so the target's state, the inventory view and the
 * exporter keep sharing one record per object and nothing is sent.
 */
final class RecordChanges {

  final List<Record> upserts = new ArrayList<>();
  final List<Record> removed = new ArrayList<>();

  boolean isEmpty() {
    return upserts.isEmpty() && removed.isEmpty();
  }

  /** Sets {@code key}'s entry to {@code next} ({@code null}: gone) and notes what it changed. */
  void apply(TargetRecords records, ObjectKey key, TargetRecords.Entry next) {
    TargetRecords.Entry old = records.get(key);
    if (old == next) {
      return;
    }
    Record before = old == null ? null : old.record();
    Record after = next == null ? null : next.record();
    if (before != null && after != null && before != after
        && TargetRecords.sameContent(before, after)) {
      next = new TargetRecords.Entry(next.resourceVersion(), next.stamp(), before);
      after = before;
    }
    records.put(key, next);
    if (after != null && after != before) {
      upserts.add(after);
    } else if (after == null && before != null) {
      removed.add(before);
    }
  }
}
