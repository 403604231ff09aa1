package io.kollect.export.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.kollect.extract.GroupVersionKind;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/** Records of cluster {@code prod-eu-1}, target {@code platform/cms}, as extraction makes them. */
final class InventoryRecords {

  static final String CLUSTER = "prod-eu-1";
  static final String TARGET = "platform/cms";
  static final GroupVersionKind CONFIG_MAP = new GroupVersionKind("", "v1", "ConfigMap");
  static final GroupVersionKind DEPLOYMENT = new GroupVersionKind("apps", "v1", "Deployment");
  static final GroupVersionKind NAMESPACE = new GroupVersionKind("", "v1", "Namespace");
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  private InventoryRecords() {}

  /** A ConfigMap {@code load/<name>} in state {@code version}; the content hash names both. */
  static Record configMap(String name, int version) {
    return record(CONFIG_MAP, "load", name, version, "");
  }

  /** ConfigMaps {@code cm-0} to {@code cm-<count - 1>}, all in state 1. */
  static List<Record> configMaps(int count) {
    return IntStream.range(0, count).mapToObj(i -> configMap("cm-" + i, 1)).toList();
  }

  /** As {@link #configMap} with a field of {@code padding} characters (for oversized records). */
  static Record record(GroupVersionKind gvk, String namespace, String name, int version,
      String padding) {
    Map<String, JsonNode> fields = Map.of("version", new IntNode(version),
        "data", new TextNode(padding));
    return new Record(Op.UPSERT, CLUSTER, TARGET, "default", gvk, namespace, name, "uid-" + name,
        String.valueOf(version), T0.plusSeconds(version), hash(name, version, padding.length()),
        fields, Map.of("app", name), Map.of());
  }

  static String hash(String name, int version, int padding) {
    return "h-" + name + "-" + version + "-" + padding;
  }

  /** The message key of ConfigMap {@code load/<name>} of this cluster and target. */
  static String key(String name) {
    return CLUSTER + "/" + TARGET + "//ConfigMap/load/" + name;
  }
}
