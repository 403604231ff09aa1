package io.kollect.export.otlp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kollect.extract.GroupVersionKind;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/** Records of cluster {@code prod-eu-1}, target {@code platform/cms}, as the exporter sends them. */
final class Records {

  static final String CLUSTER = "prod-eu-1";
  static final String TARGET = "platform/cms";
  static final GroupVersionKind DEPLOYMENT = new GroupVersionKind("apps", "v1", "Deployment");
  static final GroupVersionKind CONFIG_MAP = new GroupVersionKind("", "v1", "ConfigMap");
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00.123456789Z");
  private static final ObjectMapper JSON = new ObjectMapper();

  private Records() {}

  /** Deployment {@code shop/web} with labels, an annotation and fields of every JSON type. */
  static Record deployment() {
    Map<String, JsonNode> fields = new LinkedHashMap<>();
    try {
      fields.put("replicas", JSON.readTree("3"));
      fields.put("image", JSON.readTree("\"nginx:1.27\""));
      fields.put("paused", JSON.readTree("false"));
      fields.put("cpu", JSON.readTree("0.5"));
      fields.put("ports", JSON.readTree("[80, 443]"));
      fields.put("strategy", JSON.readTree("{\"type\":\"RollingUpdate\",\"maxSurge\":null}"));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("app", "web");
    labels.put("team", "shop");
    return new Record(Op.UPSERT, CLUSTER, TARGET, "workloads", DEPLOYMENT, "shop", "web",
        "uid-web", "4711", T0, "h-web-1", fields, labels,
        Map.of("kollect.io/owner", "team-shop"), 7L);
  }

  /** A DELETE of ConfigMap {@code load/<name>}. */
  static Record configMapDelete(String name, long sequence) {
    return new Record(Op.DELETE, CLUSTER, TARGET, "default", CONFIG_MAP, "load", name,
        "uid-" + name, "99", T0.plusSeconds(1), null, Map.of(), Map.of(), Map.of(), sequence);
  }

  /** UPSERTs of ConfigMaps {@code load/cm-0..count-1}, sequences 1..count. */
  static List<Record> configMaps(int count) {
    return IntStream.range(0, count).mapToObj(i -> new Record(Op.UPSERT, CLUSTER, TARGET,
        "default", CONFIG_MAP, "load", "cm-" + i, "uid-cm-" + i, "1", T0, "h-" + i,
        Map.of("data", JSON.getNodeFactory().textNode("v" + i)), Map.of(), Map.of(),
        (long) i + 1)).toList();
  }
}
