package io.kollect.operator.targets;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kollect.core.ClientJson;
import io.kollect.core.SkippedScope;
import io.kollect.core.TargetId;
import io.kollect.core.TargetScope;
import io.kollect.core.TargetSpec;
import io.kollect.core.TargetStatus;
import io.kollect.export.DeliveryStatus;
import io.kollect.export.Rejection;
import io.kollect.extract.ProfileSpec;
import io.kollect.operator.OperatorConfig;
import io.kollect.operator.cluster.ClusterCatalog;
import io.kollect.operator.crd.KollectProfile;
import io.kollect.operator.crd.KollectTarget;
import io.kollect.operator.crd.KollectTargetSpec;
import io.kollect.operator.crd.KollectTargetStatus;
import io.kollect.operator.crd.SkippedEntry;
import io.kollect.operator.inventory.InventoryHealth;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Custom resources to the core model and core status back to custom resource status. */
public final class CrTranslation {

  private static final ObjectMapper MAPPER =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  /** Reads status written by this or a newer operator: unknown fields are ignored. */
  private static final ObjectMapper LENIENT =
      new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  /** The client's serialization of custom resources (its own Jackson line), for reading specs. */
  private static final KubernetesSerialization CLIENT_JSON = new KubernetesSerialization();

  private CrTranslation() {}

  public static ObjectMapper lenient() {
    return LENIENT;
  }

  /** The engine's name of a KollectSink: {@code namespace/name} (sinks are namespaced). */
  public static String sinkName(String namespace, String name) {
    return namespace + "/" + name;
  }

  /**
   * A profile's spec in the extract model.
   *
   * @throws IllegalArgumentException naming the field when the spec does not map (e.g. a missing
   *     spec)
   */
  public static ProfileSpec profile(KollectProfile profile) {
    if (profile.getSpec() == null) {
      throw new IllegalArgumentException("spec: is missing");
    }
    // written by the client first: a field's default is the client's JSON tree
    return MAPPER.convertValue(ClientJson.toTree(CLIENT_JSON, profile.getSpec()), ProfileSpec.class);
  }

  /**
   * A target in the core model. Sink refs are resolved in the target's namespace; {@code
   * extraSinks} (e.g. {@code --stdout}) are added to every target.
   */
  static TargetSpec target(KollectTarget target, List<String> extraSinks) {
    return target(target, extraSinks, OperatorConfig.DEFAULT_SERVICE_ACCOUNT);
  }

  /**
   * The ServiceAccount a target reads as: {@code spec.serviceAccountName}, else the operator's
   * default ({@code --default-service-account}).
   */
  static String serviceAccount(KollectTarget target, String defaultServiceAccount) {
    String sa = target.getSpec() == null ? null : target.getSpec().serviceAccountName();
    return sa == null || sa.isBlank() ? defaultServiceAccount : sa;
  }

  /** A target in the core model, reading as its ServiceAccount (see {@link #serviceAccount}). */
  static TargetSpec target(KollectTarget target, List<String> extraSinks,
      String defaultServiceAccount) {
    KollectTargetSpec spec = target.getSpec();
    String ns = target.getMetadata().getNamespace();
    TargetId id = new TargetId(ns, target.getMetadata().getName());
    long generation = target.getMetadata().getGeneration() == null
        ? 0 : target.getMetadata().getGeneration();
    if (spec == null) {
      throw new IllegalArgumentException("spec: is missing");
    }
    TargetScope scope = spec.scope() == null
        ? TargetScope.everything()
        : new TargetScope(spec.scope().namespaces(), spec.scope().namespaceSelector(),
            spec.scope().labelSelector(), spec.scope().names());
    List<String> sinks = new ArrayList<>();
    if (spec.sinkRefs() != null) {
      for (String ref : spec.sinkRefs()) {
        sinks.add(sinkName(ns, ref));
      }
    }
    sinks.addAll(extraSinks);
    return new TargetSpec(id, generation, spec.profileRef(), scope, sinks,
        Boolean.TRUE.equals(spec.writeInventory()), serviceAccount(target, defaultServiceAccount))
        .toBuilder().suspend(Boolean.TRUE.equals(spec.suspend()))
        .maxObjects(spec.limits() == null ? null : spec.limits().maxObjects()).build();
  }

  /** The status subresource of a target from the engine's view alone. */
  static KollectTargetStatus status(TargetStatus status) {
    return status(status, null, Instant.now(), null);
  }

  static final String REASON_INVENTORY_FAILING = "InventoryWriteFailing";
  /** Core's reason for a sink that keeps failing ({@code DeliveryHealth}'s judgement). */
  static final String REASON_DELIVERY_FAILING = "DeliveryFailing";
  /** The same on a KollectTarget, as documented in docs/crds.md. */
  static final String REASON_SINK_FAILING = "SinkDeliveryFailing";
  /** Ready reasons of problems a retry does not fix: the target is Stalled (kstatus). */
  public static final java.util.Set<String> STALLED_REASONS = java.util.Set.of(
      "ProfileNotFound", "InvalidProfile", "InvalidTarget", REASON_INVENTORY_FAILING,
      REASON_SINK_FAILING, REASON_DELIVERY_FAILING);
  static final String RECORDS_REJECTED = "RecordsRejected";
  /** Rejected records named in the condition message; the rest are counted. */
  static final int REJECTED_NAMED = 3;

  /**
   * The status subresource of a target: the engine's view, the operator's inventory writes on top,
   * and the kstatus conditions derived from both.
   *
   * @param inventory the target's inventory write health, or {@code null} when it writes none
   * @param now the time the failure threshold is judged at
   * @param previous the status written last, whose transition times are kept when a condition's
   *     status did not change; may be {@code null}
   */
  static KollectTargetStatus status(TargetStatus status, InventoryHealth inventory, Instant now,
      KollectTargetStatus previous) {
    return status(status, inventory, Map.of(), now, previous);
  }

  /**
   * As {@link #status(TargetStatus, InventoryHealth, Instant, KollectTargetStatus)}, with the
   * target's deliveries to its KollectSinks by sink name, as the engine reported them. Whether a
   * sink is failing is the engine's judgement ({@code Ready=False}, reason {@code DeliveryFailing},
   * after 3 failed attempts or 60 s): it is carried over as reason {@code SinkDeliveryFailing},
   * never judged again here. Records a sink rejected for good are a {@code RecordsRejected}
   * condition; every sink is listed in {@code status.sinks}.
   */
  static KollectTargetStatus status(TargetStatus status, InventoryHealth inventory,
      Map<String, DeliveryStatus> deliveries, Instant now, KollectTargetStatus previous) {
    long generation = status.observedGeneration();
    List<Condition> before = previous == null || previous.conditions() == null
        ? List.of() : previous.conditions();
    Map<String, Condition> byType = new java.util.LinkedHashMap<>();
    for (io.kollect.core.Condition c : status.conditions()) {
      String reason = REASON_DELIVERY_FAILING.equals(c.reason()) ? REASON_SINK_FAILING : c.reason();
      byType.put(c.type(), condition(c.type(), c.status(), reason,
          ClusterCatalog.withDisplayNames(c.message()), c.lastTransitionTime(), generation));
    }
    if (inventory != null && inventory.failing(now)) {
      String message = "inventory writes have failed " + inventory.consecutiveFailures()
          + " time(s) in a row since " + rfc3339(inventory.failingSince()) + ": "
          + inventory.lastError();
      byType.put("Ready", kept(before, "Ready", "False", REASON_INVENTORY_FAILING, message, now, generation));
      byType.put("Degraded", kept(before, "Degraded", "True", REASON_INVENTORY_FAILING, message, now, generation));
    }
    List<InventoryHealth.RejectedRecord> allRejected = new ArrayList<>();
    if (inventory != null) {
      allRejected.addAll(inventory.rejected());
    }
    deliveries.forEach((sink, d) -> {
      for (Rejection r : d.rejected()) {
        allRejected.add(new InventoryHealth.RejectedRecord(r.key(), r.key() + " (sink " + sink + ")",
            -1, r.reason()));
      }
    });
    if (!allRejected.isEmpty()) {
      String message = rejectedMessage(allRejected);
      byType.put(RECORDS_REJECTED, kept(before, RECORDS_REJECTED, "True", "TooLarge", message, now,
          generation));
      Condition degraded = byType.get("Degraded");
      if (degraded == null || !"True".equals(degraded.getStatus())) {
        byType.put("Degraded", kept(before, "Degraded", "True", "TooLarge", message, now, generation));
      }
    }
    Condition ready = byType.get("Ready");
    if (ready != null && !"True".equals(ready.getStatus())) {
      if (STALLED_REASONS.contains(ready.getReason())) {
        byType.put("Stalled", kept(before, "Stalled", "True", ready.getReason(), ready.getMessage(),
            now, generation));
      } else {
        byType.put("Reconciling", kept(before, "Reconciling", "True", ready.getReason(),
            ready.getMessage(), now, generation));
      }
    }
    List<SkippedEntry> skipped = new ArrayList<>();
    for (SkippedScope s : status.skipped()) {
      skipped.add(new SkippedEntry(s.resource(), s.namespace(), s.reason(), s.message()));
    }
    Map<String, Integer> counts = new TreeMap<>(status.objectCounts());
    int total = counts.values().stream().mapToInt(Integer::intValue).sum();
    return new KollectTargetStatus(generation, new ArrayList<>(byType.values()), counts, skipped,
        status.lastExport() == null ? null : rfc3339(status.lastExport()), total,
        inventory == null ? null : inventoryStatus(inventory), sinkStatuses(deliveries),
        clusterEntries(status.clusters()));
  }

  /** {@code status.clusters[]}: an unavailable cluster under the reference it came from. */
  static List<KollectTargetStatus.ClusterEntry> clusterEntries(
      List<TargetStatus.ClusterPart> parts) {
    if (parts.isEmpty()) {
      return null;
    }
    return parts.stream().map(p -> new KollectTargetStatus.ClusterEntry(
        ClusterCatalog.displayName(p.name()), p.ready(), p.objects(),
        p.ready() ? null : p.reason() + ": " + ClusterCatalog.withDisplayNames(p.message())))
        .toList();
  }

  private static List<KollectTargetStatus.SinkStatus> sinkStatuses(
      Map<String, DeliveryStatus> deliveries) {
    if (deliveries.isEmpty()) {
      return null;
    }
    List<KollectTargetStatus.SinkStatus> out = new ArrayList<>();
    deliveries.forEach((sink, d) -> out.add(new KollectTargetStatus.SinkStatus(
        sink.contains("/") ? sink.substring(sink.indexOf('/') + 1) : sink,
        d.lastAcknowledged() == null ? null : rfc3339(d.lastAcknowledged()), d.pending(),
        d.consecutiveFailures(), d.failingSince() == null ? null : rfc3339(d.failingSince()),
        d.lastError(), d.rejected().isEmpty() ? null : d.rejected().stream()
            .map(r -> new KollectTargetStatus.SinkRejection(r.key(), r.reason())).toList())));
    return out;
  }

  private static String rejectedMessage(List<InventoryHealth.RejectedRecord> rejected) {
    StringBuilder b = new StringBuilder();
    b.append(rejected.size()).append(rejected.size() == 1 ? " record is" : " records are")
        .append(" left out (not retried until the object changes): ");
    for (int i = 0; i < Math.min(REJECTED_NAMED, rejected.size()); i++) {
      InventoryHealth.RejectedRecord r = rejected.get(i);
      b.append(i == 0 ? "" : "; ").append(r.object());
      if (r.bytes() >= 0) {
        b.append(" (").append(r.bytes()).append(" bytes)");
      }
      b.append(": ").append(r.reason());
    }
    if (rejected.size() > REJECTED_NAMED) {
      b.append("; and ").append(rejected.size() - REJECTED_NAMED).append(" more");
    }
    return b.toString();
  }

  private static KollectTargetStatus.InventoryStatus inventoryStatus(InventoryHealth h) {
    List<KollectTargetStatus.RejectedRecord> rejected = h.rejected().stream()
        .map(r -> new KollectTargetStatus.RejectedRecord(r.object(), r.bytes(), r.reason()))
        .toList();
    return new KollectTargetStatus.InventoryStatus(h.records(), h.pending(),
        h.consecutiveFailures(), h.lastWritten() == null ? null : rfc3339(h.lastWritten()),
        h.lastError(), rejected.isEmpty() ? null : rejected);
  }

  /** A condition keeping the previous transition time when its status did not change. */
  public static Condition kept(List<Condition> previous, String type, String status, String reason,
      String message, Instant now, long generation) {
    Instant since = now;
    for (Condition c : previous) {
      if (type.equals(c.getType()) && status.equals(c.getStatus())
          && c.getLastTransitionTime() != null) {
        since = Instant.parse(c.getLastTransitionTime());
      }
    }
    return condition(type, status, reason, message, since, generation);
  }

  public static Condition condition(String type, String status, String reason, String message,
      Instant lastTransition, long observedGeneration) {
    return new ConditionBuilder()
        .withType(type)
        .withStatus(status)
        .withReason(reason)
        // Never empty: the API server's structural schema rejects what an empty message becomes
        // in the status patch; the reason is the best short description there is.
        .withMessage(message == null || message.isBlank() ? reason : message)
        .withLastTransitionTime(rfc3339(lastTransition == null ? Instant.now() : lastTransition))
        .withObservedGeneration(observedGeneration)
        .build();
  }

  public static String rfc3339(Instant instant) {
    return instant.truncatedTo(ChronoUnit.SECONDS).toString();
  }
}
