package io.kollect.core;

import io.kollect.export.DeliveryStatus;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a target's last reconcile found.
 *
 * @param id the target
 * @param observedGeneration the spec generation this status describes
 * @param conditions {@code Ready}, {@code Degraded} and {@code ExtractionErrors}
 * @param objectCounts exported objects per resource type ({@code apiVersion/Kind}); every type of
 *     the target's profile is present, with {@code 0} when it has no objects, so a count that
 *     drops to zero is reported as zero rather than vanishing
 * @param skipped parts of the scope that cannot be read
 * @param lastExport when records were last handed to the sinks, or {@code null}
 * @param extractionErrorCount how many objects in scope failed extraction in the last reconcile
 * @param extractionErrors the first few of them ({@value #EXTRACTION_ERROR_SAMPLES} at most),
 *     ordered by type, namespace and name
 * @param deliveries how this target's records are being delivered, by sink name: when a sink last
 *     acknowledged them, how many are pending, whether writes keep failing and which records it
 *     refused for good (empty while this instance does not export)
 * @param clusters one entry per cluster the target reads, by cluster name, when its spec names
 *     {@link TargetSpec#clusters() clusters}; empty for a target of the engine's own cluster only.
 *     The other components sum over the clusters (counts, errors) or merge them (conditions are
 *     {@code Ready} only when every cluster is).
 */
public record TargetStatus(
    TargetId id,
    long observedGeneration,
    List<Condition> conditions,
    Map<String, Integer> objectCounts,
    List<SkippedScope> skipped,
    Instant lastExport,
    int extractionErrorCount,
    List<ExtractionError> extractionErrors,
    Map<String, DeliveryStatus> deliveries,
    List<ClusterPart> clusters) {

  /** How many failing objects a status names at most. */
  public static final int EXTRACTION_ERROR_SAMPLES = 5;

  public TargetStatus {
    conditions = List.copyOf(conditions);
    objectCounts = Map.copyOf(objectCounts);
    skipped = List.copyOf(skipped);
    extractionErrors = extractionErrors == null ? List.of() : List.copyOf(extractionErrors);
    deliveries = deliveries == null ? Map.of()
        : Collections.unmodifiableMap(new TreeMap<>(deliveries));
    clusters = clusters == null ? List.of() : List.copyOf(clusters);
  }

  /**
   * One cluster's part of a target.
   *
   * @param name the cluster's name (the {@code cluster} value of its records)
   * @param ready whether this cluster's part is {@code Ready}
   * @param objects objects exported from this cluster
   * @param reason the CamelCase reason of this part's {@code Ready} condition
   * @param message why it is not ready, or a short summary; never a credential
   */
  public record ClusterPart(String name, boolean ready, int objects, String reason,
      String message) {}

  /** A status of the engine's own cluster only. */
  public TargetStatus(TargetId id, long observedGeneration, List<Condition> conditions,
      Map<String, Integer> objectCounts, List<SkippedScope> skipped, Instant lastExport,
      int extractionErrorCount, List<ExtractionError> extractionErrors,
      Map<String, DeliveryStatus> deliveries) {
    this(id, observedGeneration, conditions, objectCounts, skipped, lastExport,
        extractionErrorCount, extractionErrors, deliveries, List.of());
  }

  /** A status without delivery information. */
  public TargetStatus(TargetId id, long observedGeneration, List<Condition> conditions,
      Map<String, Integer> objectCounts, List<SkippedScope> skipped, Instant lastExport,
      int extractionErrorCount, List<ExtractionError> extractionErrors) {
    this(id, observedGeneration, conditions, objectCounts, skipped, lastExport,
        extractionErrorCount, extractionErrors, Map.of());
  }

  /** This status with fresh delivery figures; everything else unchanged. */
  public TargetStatus withDeliveries(Map<String, DeliveryStatus> fresh) {
    return new TargetStatus(id, observedGeneration, conditions, objectCounts, skipped, lastExport,
        extractionErrorCount, extractionErrors, fresh, clusters);
  }

  /** A status without extraction errors. */
  public TargetStatus(TargetId id, long observedGeneration, List<Condition> conditions,
      Map<String, Integer> objectCounts, List<SkippedScope> skipped, Instant lastExport) {
    this(id, observedGeneration, conditions, objectCounts, skipped, lastExport, 0, List.of(),
        Map.of());
  }

  /** The condition of the given type, or {@code null}. */
  public Condition condition(String type) {
    return conditions.stream().filter(c -> c.type().equals(type)).findFirst().orElse(null);
  }

  /** Whether {@code Ready} is {@code True}. */
  public boolean ready() {
    Condition c = condition(Condition.READY);
    return c != null && "True".equals(c.status());
  }
}
