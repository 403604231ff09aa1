package io.kollect.core;

import io.kollect.export.Exporter;
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
 *
 * <p>It owns what the exporter was handed per unit ({@link TargetRuntime#exported}, {@link
 * TargetRuntime#exportedSinks}) and the unit's export cap ({@link ExportCap}): nothing else
 * writes them.
 */
final class HandOver {

  private final Exporter exporter;
  private final ClusterInventoryView views;
  private final Clock clock;

  /** Feeds each unit's records to the view of its cluster. */
  HandOver(Exporter exporter, ClusterInventoryView views, Clock clock) {
    this.exporter = exporter;
    this.views = views;
    this.clock = clock;
  }

  /**
   * Feeds a delta pass's changes to the view and, when {@code export}, to the sinks; returns
   * whether the sinks were handed a change (which moves the target's {@code lastExport}).
   */
  boolean delta(TargetRuntime rt, RecordChanges changes, Set<String> sinks, boolean export) {
    boolean handed = export && !changes.isEmpty();
    if (ExportCap.stale(rt)) {
      // The cap was set or lifted and no full pass handed over since (e.g. still syncing).
      changes = ExportCap.full(rt, changes, List.of()).view();
    } else if (rt.cap != null) {
      changes = rt.cap.apply(changes);
    }
    if (changes.isEmpty()) {
      return handed;
    }
    feedView(rt, changes);
    if (export) {
      List<String> deleted = new ArrayList<>(changes.removed.size());
      for (Record r : changes.removed) {
        deleted.add(r.key());
      }
      exporter.update(rt.exportKey, sinks, changes.upserts, deleted);
    }
    return handed;
  }

  /**
   * Feeds a full pass's changes to the view and, when {@code export}, converges the sinks to the
   * unit's whole record set; returns whether the sinks were handed a changed set (new changes,
   * other sinks, or the first set since export was (re)enabled).
   */
  boolean full(TargetRuntime rt, RecordChanges changes, Set<String> sinks, boolean export) {
    boolean handed = export && (!rt.exported || !sinks.equals(rt.exportedSinks)
        || !changes.isEmpty());
    ExportCap.Handed capped = ExportCap.full(rt, changes,
        export ? rt.records.records() : List.of());
    feedView(rt, capped.view());
    if (export) {
      exporter.converge(rt.exportKey, sinks, capped.export());
      rt.exported = true;
      rt.exportedSinks = Set.copyOf(sinks);
    }
    return handed;
  }

  /** Forgets what the unit's sinks were handed: the next full pass hands its whole set afresh. */
  static void forgetExported(TargetRuntime rt) {
    rt.exported = false;
    rt.exportedSinks = Set.of();
  }

  private void feedView(TargetRuntime rt, RecordChanges changes) {
    if (changes.isEmpty()) {
      return;
    }
    List<Record> batch = new ArrayList<>(changes.upserts.size() + changes.removed.size());
    batch.addAll(changes.upserts);
    Instant now = clock.instant();
    for (Record r : changes.removed) {
      batch.add(r.tombstone(now));
    }
    views.sinkFor(rt.cluster).write(batch);
  }

  /** Clears the unit's records from the view (the target was removed, or left the cluster). */
  void clearView(TargetRuntime rt) {
    Collection<Record> records = rt.records.records();
    Instant now = clock.instant();
    List<Record> tombstones = new ArrayList<>(records.size());
    for (Record r : records) {
      tombstones.add(r.tombstone(now));
    }
    if (!tombstones.isEmpty()) {
      views.sinkFor(rt.cluster).write(tombstones);
    }
  }

  Exporter exporter() {
    return exporter;
  }
}
