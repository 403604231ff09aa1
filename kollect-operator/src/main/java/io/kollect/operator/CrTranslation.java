package io.kollect.operator;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.kollect.core.SkippedScope;
import io.kollect.core.TargetId;
import io.kollect.core.TargetScope;
import io.kollect.core.TargetSpec;
import io.kollect.core.TargetStatus;
import io.kollect.extract.ProfileSpec;
import io.kollect.operator.crd.KollectProfile;
import io.kollect.operator.crd.KollectTarget;
import io.kollect.operator.crd.KollectTargetSpec;
import io.kollect.operator.crd.KollectTargetStatus;
import io.kollect.operator.crd.SkippedEntry;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Custom resources to the core model and core status back to custom resource status. */
final class CrTranslation {

  private static final ObjectMapper MAPPER =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  private CrTranslation() {}

  /** The engine's name of a KollectSink: {@code namespace/name} (sinks are namespaced). */
  static String sinkName(String namespace, String name) {
    return namespace + "/" + name;
  }

  /**
   * A profile's spec in the extract model.
   *
   * @throws IllegalArgumentException naming the field when the spec does not map (e.g. a missing
   *     spec)
   */
  static ProfileSpec profile(KollectProfile profile) {
    if (profile.getSpec() == null) {
      throw new IllegalArgumentException("spec: is missing");
    }
    return MAPPER.convertValue(profile.getSpec(), ProfileSpec.class);
  }

  /**
   * A target in the core model. Sink refs are resolved in the target's namespace; {@code
   * extraSinks} (e.g. {@code --stdout}) are added to every target.
   */
  static TargetSpec target(KollectTarget target, List<String> extraSinks) {
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
        Boolean.TRUE.equals(spec.writeInventory()));
  }

  /** The status subresource of a target from the engine's view. */
  static KollectTargetStatus status(TargetStatus status) {
    List<Condition> conditions = new ArrayList<>();
    for (io.kollect.core.Condition c : status.conditions()) {
      conditions.add(condition(c.type(), c.status(), c.reason(), c.message(),
          c.lastTransitionTime(), status.observedGeneration()));
    }
    List<SkippedEntry> skipped = new ArrayList<>();
    for (SkippedScope s : status.skipped()) {
      skipped.add(new SkippedEntry(s.resource(), s.namespace(), s.reason(), s.message()));
    }
    Map<String, Integer> counts = new TreeMap<>(status.objectCounts());
    return new KollectTargetStatus(status.observedGeneration(), conditions, counts, skipped,
        status.lastExport() == null ? null : rfc3339(status.lastExport()));
  }

  static Condition condition(String type, String status, String reason, String message,
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

  static String rfc3339(Instant instant) {
    return instant.truncatedTo(ChronoUnit.SECONDS).toString();
  }
}
