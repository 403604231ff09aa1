package io.kollect.export;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kollect.extract.Record;
import io.kollect.extract.Records;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The published JSON Schema ({@code docs/record-format.schema.json}) and the record format page
 * describe exactly what sinks are sent: every key a delivered record has is in the schema, every
 * key the schema requires is in every record, in the documented order, and both name one version.
 */
class RecordFormatSchemaTest {

  static final Path DOCS = Path.of("..", "docs");

  private static JsonNode schema() throws IOException {
    return RecordJson.MAPPER.readTree(Files.readString(DOCS.resolve("record-format.schema.json")));
  }

  private static List<String> keys(JsonNode node) {
    List<String> out = new ArrayList<>();
    node.fieldNames().forEachRemaining(out::add);
    return out;
  }

  @Test
  void deliveredUpsertsAndDeletesHaveExactlyTheSchemasKeysInTheDocumentedOrder()
      throws IOException {
    JsonNode schema = schema();
    List<String> properties = keys(schema.get("properties"));
    List<String> required = new ArrayList<>();
    schema.get("required").forEach(n -> required.add(n.asText()));
    Record upsert = TestRecords.record("ns/t", "a", 3).withSequence(1767225600000001L);
    Record delete = upsert.tombstone(Instant.parse("2026-01-01T00:00:02Z"))
        .withSequence(1767225602000000L);
    for (Record r : List.of(upsert, delete)) {
      JsonNode json = RecordJson.MAPPER.readTree(Records.toJsonLine(r));
      assertThat(keys(json)).as(r.op().name()).containsExactlyElementsOf(properties);
      assertThat(keys(json)).containsAll(required);
      assertThat(json.get("sequence").isIntegralNumber()).isTrue();
    }
    // outside delivery (offline extraction) there is no sequence, and the schema allows that
    JsonNode offline = RecordJson.MAPPER.readTree(Records.toJsonLine(TestRecords.record("t", "a", 1)));
    assertThat(keys(offline)).doesNotContain("sequence").containsAll(required);
    assertThat(required).doesNotContain("sequence");
  }

  @Test
  void theSchemaAndTheFormatPageNameTheSameFormatVersion() throws IOException {
    String id = schema().get("$id").asText();
    String page = Files.readString(DOCS.resolve("record-format.md"));
    assertThat(id).contains("/record-format/1.1/");
    assertThat(page).contains("**Format version: 1.1.**").contains(id);
  }
}
