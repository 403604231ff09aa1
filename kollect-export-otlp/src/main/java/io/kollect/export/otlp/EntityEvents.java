package io.kollect.export.otlp;

import com.fasterxml.jackson.databind.JsonNode;
import io.kollect.extract.GroupVersionKind;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.common.Value;
import io.opentelemetry.sdk.common.InstrumentationScopeInfo;
import io.opentelemetry.sdk.resources.Resource;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Maps a record to an OpenTelemetry entity event ({@code docs/record-format.md}, "OTLP mapping").
 *
 * <p>The mapping is part of the public contract, so every name here is pinned: UPSERT is {@code
 * entity.state}, DELETE {@code entity.delete}; {@code entity.type} comes from {@link #entityType};
 * {@code entity.id} is the record identity (cluster, target, group, kind, namespace, name) as a
 * map; {@code entity.description} holds the descriptive attributes (uid, apiVersion,
 * resourceVersion, profile, labels and annotations under their semantic-convention names); the
 * extracted fields are the body, a map with their JSON types kept.
 */
final class EntityEvents {

  /** The semantic-conventions version the attribute names follow. */
  static final String SEMCONV_VERSION = "1.42.0";
  static final String STATE = "entity.state";
  static final String DELETE = "entity.delete";
  /** A DELETE means the object left the target's inventory: deleted, or out of scope. */
  static final String DELETE_REASON = "deleted";

  static final AttributeKey<String> ENTITY_TYPE = AttributeKey.stringKey("entity.type");
  static final AttributeKey<Value<?>> ENTITY_ID = AttributeKey.valueKey("entity.id");
  static final AttributeKey<Value<?>> ENTITY_DESCRIPTION =
      AttributeKey.valueKey("entity.description");
  static final AttributeKey<Long> REPORT_INTERVAL = AttributeKey.longKey("entity.report.interval");
  static final AttributeKey<String> DELETE_REASON_KEY = AttributeKey.stringKey(
      "entity.delete.reason");
  static final AttributeKey<Long> SEQUENCE = AttributeKey.longKey("kollect.sequence");
  static final AttributeKey<String> CONTENT_HASH = AttributeKey.stringKey("kollect.content_hash");

  /**
   * Kinds with a semantic-convention entity name, by {@code group/Kind} (core group empty). Other
   * kinds follow the rule of {@link #entityType}.
   */
  private static final Map<String, String> SEMCONV_TYPES = Map.ofEntries(
      Map.entry("/Pod", "k8s.pod"),
      Map.entry("/Namespace", "k8s.namespace"),
      Map.entry("/Node", "k8s.node"),
      Map.entry("/ReplicationController", "k8s.replicationcontroller"),
      Map.entry("/ResourceQuota", "k8s.resourcequota"),
      Map.entry("apps/Deployment", "k8s.deployment"),
      Map.entry("apps/StatefulSet", "k8s.statefulset"),
      Map.entry("apps/DaemonSet", "k8s.daemonset"),
      Map.entry("apps/ReplicaSet", "k8s.replicaset"),
      Map.entry("batch/Job", "k8s.job"),
      Map.entry("batch/CronJob", "k8s.cronjob"),
      Map.entry("autoscaling/HorizontalPodAutoscaler", "k8s.hpa"));

  private final Resource resource;
  private final InstrumentationScopeInfo scope;
  private final long reportIntervalMillis;

  EntityEvents(Map<String, String> resourceAttributes, Duration reportInterval) {
    AttributesBuilder r = Attributes.builder().put("service.name", "kollect");
    resourceAttributes.forEach(r::put);
    this.resource = Resource.create(r.build(), "https://opentelemetry.io/schemas/"
        + SEMCONV_VERSION);
    this.scope = InstrumentationScopeInfo.builder("io.kollect.export.otlp")
        .setSchemaUrl("https://opentelemetry.io/schemas/" + SEMCONV_VERSION).build();
    this.reportIntervalMillis = reportInterval.toMillis();
  }

  /**
   * The {@code entity.type} of a kind: the semantic-convention name where one exists ({@code
   * k8s.deployment}, {@code k8s.pod}, ...), otherwise {@code k8s.<kind lowercased>} for the core
   * group and {@code k8s.<group>.<kind lowercased>} for any other (for example {@code k8s.configmap},
   * {@code k8s.cert-manager.io.certificate}). The API version never takes part.
   */
  static String entityType(GroupVersionKind gvk) {
    String group = gvk.group() == null ? "" : gvk.group();
    String known = SEMCONV_TYPES.get(group + "/" + gvk.kind());
    if (known != null) {
      return known;
    }
    String kind = gvk.kind().toLowerCase(Locale.ROOT);
    return group.isEmpty() ? "k8s." + kind : "k8s." + group + "." + kind;
  }

  /** The entity event of one record. */
  EntityLogRecord event(Record record) {
    String type = entityType(record.resource());
    AttributesBuilder a = Attributes.builder()
        .put(ENTITY_TYPE, type)
        .put(ENTITY_ID, Value.of(entityId(record, type)));
    if (record.sequence() != null) {
      a.put(SEQUENCE, record.sequence());
    }
    Instant at = record.observedAt() == null ? Instant.EPOCH : record.observedAt();
    long nanos = at.getEpochSecond() * 1_000_000_000L + at.getNano();
    if (record.op() == Op.DELETE) {
      a.put(DELETE_REASON_KEY, DELETE_REASON);
      return new EntityLogRecord(resource, scope, nanos, DELETE, a.build(), null);
    }
    a.put(ENTITY_DESCRIPTION, Value.of(description(record, type)));
    if (reportIntervalMillis > 0) {
      a.put(REPORT_INTERVAL, reportIntervalMillis);
    }
    if (record.contentHash() != null) {
      a.put(CONTENT_HASH, record.contentHash());
    }
    Map<String, Value<?>> fields = new LinkedHashMap<>();
    record.fields().forEach((k, v) -> fields.put(k, value(v)));
    return new EntityLogRecord(resource, scope, nanos, STATE, a.build(), Value.of(fields));
  }

  /** The identifying attributes: the record identity, target included. */
  private static Map<String, Value<?>> entityId(Record record, String type) {
    Map<String, Value<?>> id = new LinkedHashMap<>();
    id.put("k8s.cluster.name", Value.of(nullToEmpty(record.cluster())));
    id.put("kollect.target", Value.of(nullToEmpty(record.target())));
    id.put("kollect.resource.group", Value.of(nullToEmpty(record.resource().group())));
    id.put("kollect.resource.kind", Value.of(record.resource().kind()));
    if (record.namespace() != null) {
      id.put("k8s.namespace.name", Value.of(record.namespace()));
    }
    id.put(type + ".name", Value.of(record.name()));
    return id;
  }

  /** The descriptive attributes: labels and annotations flattened under their semconv names. */
  private static Map<String, Value<?>> description(Record record, String type) {
    Map<String, Value<?>> d = new LinkedHashMap<>();
    if (record.uid() != null) {
      d.put(type + ".uid", Value.of(record.uid()));
    }
    d.put("kollect.resource.api_version", Value.of(record.resource().apiVersion()));
    if (record.resourceVersion() != null) {
      d.put("kollect.resource_version", Value.of(record.resourceVersion()));
    }
    if (record.profile() != null) {
      d.put("kollect.profile", Value.of(record.profile()));
    }
    record.labels().forEach((k, v) -> d.put(type + ".label." + k, Value.of(v)));
    record.annotations().forEach((k, v) -> d.put(type + ".annotation." + k, Value.of(v)));
    return d;
  }

  /** A JSON value as an OTLP AnyValue: objects are maps, arrays lists, null the empty value. */
  static Value<?> value(JsonNode node) {
    if (node == null || node.isNull() || node.isMissingNode()) {
      return Value.empty();
    }
    if (node.isTextual()) {
      return Value.of(node.textValue());
    }
    if (node.isBoolean()) {
      return Value.of(node.booleanValue());
    }
    if (node.isIntegralNumber() && node.canConvertToLong()) {
      return Value.of(node.longValue());
    }
    if (node.isNumber()) {
      return Value.of(node.doubleValue());
    }
    if (node.isArray()) {
      List<Value<?>> items = new ArrayList<>(node.size());
      node.forEach(n -> items.add(value(n)));
      return Value.of(items);
    }
    if (node.isObject()) {
      Map<String, Value<?>> map = new LinkedHashMap<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        map.put(e.getKey(), value(e.getValue()));
      }
      return Value.of(map);
    }
    return Value.of(node.asText());
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
