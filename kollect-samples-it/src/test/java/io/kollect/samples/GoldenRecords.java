package io.kollect.samples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Comparing records seen on a live cluster with a sample's golden records. */
final class GoldenRecords {
  /**
   * What differs between clusters and runs and is therefore not compared live: when the state was
   * observed, the object's uid and resourceVersion (assigned by the API server), the cluster name
   * (a flag of the operator) and the target: offline `kollect test` runs have no target and write
   * {@code offline}, while live records carry the KollectTarget's {@code namespace/name}; the live
   * tests select records by that id and check it separately ({@link #assertAllOfTarget}); and the
   * delivery {@code sequence}, which the exporter assigns when it hands a record to a sink (offline
   * records have none). Everything else, contentHash included, must match the golden exactly.
   */
  static final Set<String> LIVE_IGNORED =
      Set.of("observedAt", "uid", "resourceVersion", "cluster", "target", "sequence");

  private GoldenRecords() {}

  /** The records without the ignored fields, sorted by key, for a readable comparison. */
  static List<JsonNode> comparable(Collection<JsonNode> records) {
    return records.stream()
        .map(GoldenRecords::withoutIgnored)
        .sorted(Comparator.comparing(Sample::key))
        .toList();
  }

  static JsonNode withoutIgnored(JsonNode record) {
    ObjectNode copy = record.deepCopy();
    copy.remove(LIVE_IGNORED);
    return copy;
  }

  /** Every record names {@code target}: what {@link #LIVE_IGNORED} leaves out of the comparison. */
  static void assertAllOfTarget(Collection<JsonNode> records, String target) {
    for (JsonNode r : records) {
      org.assertj.core.api.Assertions.assertThat(r.path("target").asText())
          .as("target of %s", Sample.key(r))
          .isEqualTo(target);
    }
  }

  /** The latest record per key among {@code records} that belong to {@code target}, in order seen. */
  static Map<String, JsonNode> latestByKey(List<JsonNode> records, String target) {
    Map<String, JsonNode> latest = new LinkedHashMap<>();
    for (JsonNode r : records) {
      if (target.equals(r.path("target").asText())) {
        latest.put(Sample.key(r), r);
      }
    }
    return latest;
  }

  /** The current state a stream of UPSERT/DELETE records describes: upserted and not deleted since. */
  static List<JsonNode> currentState(List<JsonNode> records, String target) {
    return latestByKey(records, target).values().stream()
        .filter(r -> "UPSERT".equals(r.path("op").asText()))
        .toList();
  }
}
