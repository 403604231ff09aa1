package io.kollect.core;

import io.kollect.export.DeliveryStatus;
import io.kollect.export.Rejection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The status of a target that reads several clusters, from its units' statuses: one {@link
 * TargetStatus.ClusterPart} per cluster, and the target's other components summed (counts,
 * extraction errors, pending deliveries) or merged (conditions, skipped scopes, the last export)
 * over them. {@code Ready} is {@code True} only when every cluster's part is; a part is not ready
 * when its cluster's connection is not healthy, whatever its last pass found (the records from
 * it are kept, not deleted, while it is away). Messages name the cluster they come from.
 *
 * <p>Pure: no engine state, so it is tested alone.
 */
final class ClusterStatusMerge {

  private ClusterStatusMerge() {}

  /**
   * One cluster's part of the target.
   *
   * @param cluster the cluster's name
   * @param status its unit's last status
   * @param health the cluster's connection health, empty while unknown
   */
  record Part(String cluster, TargetStatus status, Optional<ClusterHealth> health) {

    /** Whether the cluster's connection is known to be broken. */
    boolean unhealthy() {
      return health.isPresent() && !health.get().ready();
    }
  }

  private static final Comparator<ExtractionError> ERROR_ORDER = Comparator
      .comparing(ExtractionError::resource)
      .thenComparing(e -> e.namespace() == null ? "" : e.namespace())
      .thenComparing(ExtractionError::name);

  /**
   * The target's status over its parts, in spec order.
   *
   * @param previous the target's status before, for conditions' transition times
   */
  static TargetStatus merge(TargetId id, long generation, List<Part> parts, TargetStatus previous,
      Instant now) {
    List<TargetStatus.ClusterPart> clusterParts = new ArrayList<>();
    Map<String, Integer> counts = new TreeMap<>();
    Set<SkippedScope> skipped = new LinkedHashSet<>();
    Instant lastExport = null;
    int errorCount = 0;
    List<ExtractionError> errors = new ArrayList<>();
    List<Map<String, DeliveryStatus>> deliveries = new ArrayList<>();
    for (Part p : parts) {
      TargetStatus s = p.status();
      clusterParts.add(part(p));
      s.objectCounts().forEach((type, n) -> counts.merge(type, n, Integer::sum));
      skipped.addAll(s.skipped());
      if (s.lastExport() != null && (lastExport == null || s.lastExport().isAfter(lastExport))) {
        lastExport = s.lastExport();
      }
      errorCount += s.extractionErrorCount();
      errors.addAll(s.extractionErrors());
      deliveries.add(s.deliveries());
    }
    errors.sort(ERROR_ORDER);
    List<Condition> conditions = new ArrayList<>();
    conditions.add(ready(clusterParts, previous, now));
    for (String type : conditionTypes(parts)) {
      if (!type.equals(Condition.READY)) {
        conditions.add(merged(type, parts, previous, now));
      }
    }
    return new TargetStatus(id, generation, conditions, counts, List.copyOf(skipped), lastExport,
        errorCount, errors.subList(0, Math.min(TargetStatus.EXTRACTION_ERROR_SAMPLES,
            errors.size())), deliveries(deliveries), clusterParts);
  }

  /** A cluster's part: its connection's trouble first, else its unit's {@code Ready}. */
  static TargetStatus.ClusterPart part(Part p) {
    int objects = p.status().objectCounts().values().stream().mapToInt(Integer::intValue).sum();
    if (p.unhealthy()) {
      ClusterHealth h = p.health().get();
      return new TargetStatus.ClusterPart(p.cluster(), false, objects, h.reason(),
          h.message() + "; the " + objects + " records read before are kept");
    }
    Condition ready = p.status().condition(Condition.READY);
    return new TargetStatus.ClusterPart(p.cluster(), p.status().ready(), objects,
        ready == null ? StatusBuilder.REASON_NOT_SYNCED : ready.reason(),
        ready == null ? "" : ready.message());
  }

  private static Condition ready(List<TargetStatus.ClusterPart> parts, TargetStatus previous,
      Instant now) {
    List<String> notReady = new ArrayList<>();
    String reason = null;
    for (TargetStatus.ClusterPart p : parts) {
      if (!p.ready()) {
        reason = reason == null ? p.reason() : reason;
        notReady.add("cluster " + p.name() + ": " + p.message());
      }
    }
    if (reason == null) {
      int objects = parts.stream().mapToInt(TargetStatus.ClusterPart::objects).sum();
      return TargetStatuses.transition(Condition.READY, StatusBuilder.TRUE,
          StatusBuilder.REASON_RECONCILED,
          objects + " objects in scope in " + parts.size() + " clusters", previous, now);
    }
    return TargetStatuses.transition(Condition.READY, StatusBuilder.FALSE, reason,
        String.join("; ", notReady), previous, now);
  }

  private static Set<String> conditionTypes(List<Part> parts) {
    Set<String> types = new LinkedHashSet<>();
    types.add(Condition.DEGRADED);
    for (Part p : parts) {
      p.status().conditions().forEach(c -> types.add(c.type()));
    }
    return types;
  }

  /**
   * A condition other than {@code Ready}: {@code True} when it is for any cluster (and {@code
   * Degraded} also when a cluster's connection is broken), its reason the most important one
   * ({@link StatusBuilder#DEGRADED_PRIORITY} for {@code Degraded}), its message naming each
   * cluster it is true for.
   */
  private static Condition merged(String type, List<Part> parts, TargetStatus previous,
      Instant now) {
    List<String[]> hits = new ArrayList<>();
    Condition quiet = null;
    for (Part p : parts) {
      if (type.equals(Condition.DEGRADED) && p.unhealthy()) {
        ClusterHealth h = p.health().get();
        hits.add(new String[] {h.reason(), "cluster " + p.cluster() + ": " + h.message()});
      }
      Condition c = p.status().condition(type);
      if (c == null) {
        continue;
      }
      if (StatusBuilder.TRUE.equals(c.status())) {
        hits.add(new String[] {c.reason(), "cluster " + p.cluster() + ": " + c.message()});
      } else if (quiet == null) {
        quiet = c;
      }
    }
    if (hits.isEmpty()) {
      return TargetStatuses.transition(type, quiet == null ? StatusBuilder.FALSE : quiet.status(),
          quiet == null ? StatusBuilder.REASON_RECONCILED : quiet.reason(),
          quiet == null ? "" : quiet.message(), previous, now);
    }
    if (type.equals(Condition.DEGRADED)) {
      hits.sort(Comparator.comparingInt(h -> StatusBuilder.DEGRADED_PRIORITY.indexOf(h[0])));
    }
    List<String> messages = new ArrayList<>();
    for (String[] h : hits) {
      messages.add(h[1]);
    }
    return TargetStatuses.transition(type, StatusBuilder.TRUE, hits.get(0)[0],
        String.join("; ", messages), previous, now);
  }


  /**
   * Deliveries per sink over the units: pending summed, the latest acknowledgement, the longest
   * failure streak (its error and start), refusals concatenated up to the reported maximum.
   */
  static Map<String, DeliveryStatus> deliveries(List<Map<String, DeliveryStatus>> perUnit) {
    Map<String, DeliveryStatus> out = new LinkedHashMap<>();
    for (Map<String, DeliveryStatus> unit : perUnit) {
      unit.forEach((sink, d) -> out.merge(sink, d, ClusterStatusMerge::merge));
    }
    return out;
  }

  private static DeliveryStatus merge(DeliveryStatus a, DeliveryStatus b) {
    Instant acked = a.lastAcknowledged() == null ? b.lastAcknowledged()
        : b.lastAcknowledged() == null || a.lastAcknowledged().isAfter(b.lastAcknowledged())
            ? a.lastAcknowledged() : b.lastAcknowledged();
    DeliveryStatus worse = b.consecutiveFailures() > a.consecutiveFailures() ? b : a;
    List<Rejection> rejected = new ArrayList<>(a.rejected());
    for (Rejection r : b.rejected()) {
      if (rejected.size() >= DeliveryStatus.MAX_REPORTED_REJECTIONS) {
        break;
      }
      rejected.add(r);
    }
    return new DeliveryStatus(acked, a.pending() + b.pending(), worse.consecutiveFailures(),
        worse.failingSince(), worse.lastError(), rejected);
  }
}
