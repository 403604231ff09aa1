package io.kollect.core;

import io.kollect.export.Exporter;
import io.kollect.export.InventorySink;
import io.kollect.extract.Record;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * Hands a pass's result downstream: the in-memory inventory view always (standbys serve it too),
 * the exporter only while this instance exports. A delta pass hands over only its changes
 * ({@link Exporter#update}); a full pass lets the exporter converge to the whole set ({@link
 * Exporter#converge}, which tombstones what left while the process was not looking, e.g. keys
 * known only from a checkpoint).
 */
final class HandOver {

  private final Exporter exporter;
  private final InventorySink view;
  private final Clock clock;

  HandOver(Exporter exporter, InventorySink view, Clock clock) {
    this.exporter = exporter;
    this.view = view;
    this.clock = clock;
  }

  /** Feeds the changes to the view and, when {@code export}, to the sinks. */
  void delta(TargetRuntime rt, RecordChanges changes, Set<String> sinks, boolean export) {
    if (ExportCap.stale(rt)) {
      // The cap was set or lifted and no full pass handed over since (e.g. still syncing).
      changes = ExportCap.full(rt, changes, List.of()).view();
    } else if (rt.cap != null) {
      changes = rt.cap.apply(changes);
    }
    if (changes.isEmpty()) {
      return;
    }
    feedView(changes);
    if (export) {
      List<String> deleted = new ArrayList<>(changes.removed.size());
      for (Record r : changes.removed) {
        deleted.add(r.key());
      }
      exporter.update(rt.id.toString(), sinks, changes.upserts, deleted);
    }
  }

  /** Feeds the changes to the view and, when {@code export}, converges the sinks to {@code all}. */
  void full(TargetRuntime rt, RecordChanges changes, Collection<Record> all, Set<String> sinks,
      boolean export) {
    ExportCap.Handed handed = ExportCap.full(rt, changes, all);
    feedView(handed.view());
    if (export) {
      exporter.converge(rt.id.toString(), sinks, handed.export());
    }
  }

  private void feedView(RecordChanges changes) {
    if (changes.isEmpty()) {
      return;
    }
    List<Record> batch = new ArrayList<>(changes.upserts.size() + changes.removed.size());
    batch.addAll(changes.upserts);
    Instant now = clock.instant();
    for (Record r : changes.removed) {
      batch.add(r.tombstone(now));
    }
    view.write(batch);
  }

  /** Clears the target from the view (it was removed). */
  void clearView(Collection<Record> records) {
    Instant now = clock.instant();
    List<Record> tombstones = new ArrayList<>(records.size());
    for (Record r : records) {
      tombstones.add(r.tombstone(now));
    }
    if (!tombstones.isEmpty()) {
      view.write(tombstones);
    }
  }

  Exporter exporter() {
    return exporter;
  }
}
