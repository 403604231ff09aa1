package io.kollect.operator.status;

import io.fabric8.kubernetes.api.model.Condition;
import io.kollect.export.kafka.TopicCheck;
import io.kollect.export.otlp.PartialSuccess;
import io.kollect.export.postgres.DatabaseCheck;
import io.kollect.export.postgres.WriterConflict;
import io.kollect.operator.crd.KollectProfile;
import io.kollect.operator.crd.KollectProfileStatus;
import io.kollect.operator.crd.KollectSink;
import io.kollect.operator.crd.KollectSinkStatus;
import io.kollect.operator.metrics.OperatorMetrics;
import io.kollect.operator.targets.CrTranslation;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The status of KollectProfiles, KollectSinks and objects this operator cannot read, from what
 * the operator knows of them (a target's status is {@link CrTranslation#status}). Pure functions:
 * a condition keeps its transition time while its status does not change.
 */
public final class ResourceStatuses {

  private ResourceStatuses() {}

  /** A profile: valid (with a {@code Warning} for ignored fields) or invalid with its problem. */
  public static KollectProfileStatus profile(KollectProfile profile, String problem, List<String> warnings,
      Instant now) {
    long generation = generation(profile.getMetadata().getGeneration());
    List<Condition> previous = profile.getStatus() == null || profile.getStatus().conditions() == null
        ? List.of() : profile.getStatus().conditions();
    List<Condition> conditions = new ArrayList<>(problem == null
        ? List.of(
            CrTranslation.kept(previous, "Ready", "True", "Valid", "profile compiles", now, generation),
            CrTranslation.kept(previous, "Degraded", "False", "Valid", "no problems", now, generation))
        : List.of(
            CrTranslation.kept(previous, "Ready", "False", "InvalidProfile", problem, now, generation),
            CrTranslation.kept(previous, "Degraded", "True", "InvalidProfile", problem, now, generation),
            CrTranslation.kept(previous, "Stalled", "True", "InvalidProfile", problem, now, generation)));
    if (!warnings.isEmpty()) {
      conditions.add(CrTranslation.kept(previous, "Warning", "True", "IgnoredFields",
          String.join("; ", warnings), now, generation));
    }
    Integer resources = profile.getSpec() == null || profile.getSpec().resources() == null
        ? null : profile.getSpec().resources().size();
    return new KollectProfileStatus(generation, conditions, resources);
  }

  /**
   * A sink: its configuration problem, else whether its deliveries are failing, plus {@code
   * Insecure} while TLS verification is off.
   *
   * @param targets how many targets send to it
   */
  public static KollectSinkStatus sink(KollectSink sink, String problem, OperatorMetrics.Delivery delivery,
      List<String> warnings, int targets, Instant now) {
    return sink(sink, problem, delivery, warnings, SinkChecks.NONE, targets, now);
  }

  /**
   * A sink as {@link #sink(KollectSink, String, OperatorMetrics.Delivery, List, int, Instant)},
   * with a kafka sink's last topic check.
   */
  public static KollectSinkStatus sink(KollectSink sink, String problem, OperatorMetrics.Delivery delivery,
      List<String> warnings, TopicCheck topic, int targets, Instant now) {
    return sink(sink, problem, delivery, warnings, SinkChecks.topic(topic), targets, now);
  }

  /**
   * A sink as {@link #sink(KollectSink, String, OperatorMetrics.Delivery, List, int, Instant)},
   * with what its type's own checks found:
   * <ul>
   *   <li>a kafka topic or a postgres database that cannot be written (missing, unreachable,
   *       authentication, privilege, a newer schema) is {@code Ready=False} with the check's reason
   *       and message; a topic that is not compacted a {@code Warning} (writes go on, but deleted
   *       objects are never forgotten);
   *   <li>a live postgres writer of the same cluster name from another cluster is a {@code Warning}
   *       with reason {@code DuplicateClusterName} (the two overwrite each other's rows);
   *   <li>an OTLP partial success is a {@code Warning}, reason {@code PartialSuccess}, with the
   *       receiver's count and message; deliveries go on (the batch was acknowledged: OTLP forbids
   *       retrying it), so the sink stays {@code Ready}.
   * </ul>
   */
  public static KollectSinkStatus sink(KollectSink sink, String problem, OperatorMetrics.Delivery delivery,
      List<String> warnings, SinkChecks checks, int targets, Instant now) {
    TopicCheck topic = checks.writable();
    long generation = generation(sink.getMetadata().getGeneration());
    List<Condition> previous = sink.getStatus() == null || sink.getStatus().conditions() == null
        ? List.of() : sink.getStatus().conditions();
    List<Condition> conditions = new ArrayList<>();
    if (problem != null) {
      conditions.add(CrTranslation.kept(previous, "Ready", "False", "InvalidSink", problem, now, generation));
      conditions.add(CrTranslation.kept(previous, "Degraded", "True", "InvalidSink", problem, now, generation));
      conditions.add(CrTranslation.kept(previous, "Stalled", "True", "InvalidSink", problem, now, generation));
    } else if (sink.getSpec() != null && Boolean.TRUE.equals(sink.getSpec().suspend())) {
      String message = "suspended (spec.suspend): nothing is sent until it is resumed, then only "
          + "what changed meanwhile";
      conditions.add(CrTranslation.kept(previous, "Ready", "False", "Suspended", message, now, generation));
      conditions.add(CrTranslation.kept(previous, "Degraded", "False", "Suspended", message, now, generation));
    } else if (topic != null && topic.status() == TopicCheck.Status.ERROR) {
      conditions.add(CrTranslation.kept(previous, "Ready", "False", topic.reason(), topic.message(), now, generation));
      conditions.add(CrTranslation.kept(previous, "Degraded", "True", topic.reason(), topic.message(), now, generation));
    } else if (delivery.failing()) {
      String message = "deliveries are failing since " + CrTranslation.rfc3339(delivery.failingSince())
          + " (" + delivery.failedRecords() + " records in failed attempts, retrying); last success "
          + (delivery.lastSuccess() == null ? "never" : CrTranslation.rfc3339(delivery.lastSuccess()));
      conditions.add(CrTranslation.kept(previous, "Ready", "True", "Configured", "sink configured", now, generation));
      conditions.add(CrTranslation.kept(previous, "Degraded", "True", "DeliveryFailing", message, now, generation));
    } else {
      conditions.add(CrTranslation.kept(previous, "Ready", "True", "Configured", "sink configured", now, generation));
      conditions.add(CrTranslation.kept(previous, "Degraded", "False", "Delivering", "no problems", now, generation));
    }
    if (problem == null && !warnings.isEmpty()) {
      conditions.add(CrTranslation.kept(previous, "Insecure", "True", "InsecureSkipVerify",
          String.join("; ", warnings), now, generation));
    }
    if (problem == null && topic != null && topic.status() == TopicCheck.Status.WARNING) {
      conditions.add(CrTranslation.kept(previous, "Warning", "True", topic.reason(), topic.message(),
          now, generation));
    }
    PartialSuccess partial = checks.partial();
    if (problem == null && partial != null) {
      conditions.add(CrTranslation.kept(previous, "Warning", "True", "PartialSuccess",
          "the OTLP receiver accepted a request partially at " + CrTranslation.rfc3339(partial.at())
              + " and dropped " + partial.rejectedLogRecords() + " log record(s) (OTLP names none "
              + "and forbids a retry; counted in kollect_export_otlp_rejected_log_records): "
              + (partial.errorMessage().isEmpty() ? "no message" : partial.errorMessage()),
          now, generation));
    }
    if (problem == null && !checks.writerConflicts().isEmpty()) {
      conditions.add(CrTranslation.kept(previous, "Warning", "True", "DuplicateClusterName",
          checks.writerConflicts().stream().map(WriterConflict::describe)
              .collect(java.util.stream.Collectors.joining("; ")), now, generation));
    }
    return new KollectSinkStatus(generation, conditions, targets);
  }

  /**
   * An object of a Kollect kind this operator cannot read (e.g. a newer CRD's field): {@code
   * Ready=False} and {@code Stalled=True}, reason {@code NotUnderstood}. A map, as the object's
   * own status class may not read either.
   */
  public static Map<String, Object> unreadable(Long generation, String message, Instant now) {
    long g = generation(generation);
    return Map.of("observedGeneration", g, "conditions", List.of(
        conditionMap(CrTranslation.condition("Ready", "False", "NotUnderstood", message, now, g)),
        conditionMap(CrTranslation.condition("Stalled", "True", "NotUnderstood", message, now, g))));
  }

  private static Map<String, Object> conditionMap(Condition c) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("type", c.getType());
    m.put("status", c.getStatus());
    m.put("reason", c.getReason());
    m.put("message", c.getMessage());
    m.put("lastTransitionTime", c.getLastTransitionTime());
    m.put("observedGeneration", c.getObservedGeneration());
    return m;
  }

  private static long generation(Long generation) {
    return Optional.ofNullable(generation).orElse(0L);
  }
}
