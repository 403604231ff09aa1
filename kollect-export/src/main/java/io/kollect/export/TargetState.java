package io.kollect.export;

import io.kollect.extract.Record;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/** Everything the exporter knows about one target. All fields are guarded by this object's monitor. */
final class TargetState {

  final String target;

  /** The latest desired records by key (what heartbeats re-send). */
  Map<ExportKey, Record> current = Map.of();

  /**
   * Whether {@link #current} is the complete desired set (a converge ran). Until then it holds
   * only what {@code update} handed over (the initial list may still be arriving), so no sync may
   * conclude that a key missing from it is gone.
   */
  boolean complete;

  /** The sinks the latest converge or update named. */
  Set<String> requestedSinks = Set.of();

  final Map<String, SinkState> bySink = new HashMap<>();

  /** {@code removeTarget(.., true)} was called; forgotten once every tombstone is acknowledged. */
  boolean removing;

  /** No longer in the exporter's map; a converge that raced with the removal must look again. */
  boolean discarded;

  TargetState(String target) {
    this.target = target;
  }
}
