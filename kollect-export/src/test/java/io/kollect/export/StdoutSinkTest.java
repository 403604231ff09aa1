package io.kollect.export;

import static io.kollect.export.TestRecords.record;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.kollect.extract.Record;
import io.kollect.extract.Records;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StdoutSinkTest {

  @Test
  void writesOneJsonLinePerRecordInTheDocumentedKeyOrder() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    StdoutSink sink = StdoutSink.to("out", out);
    Record a = record("t", "a", 1);
    sink.write(List.of(a, record("t", "b", 2)));
    List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0)).startsWith("{\"op\":\"UPSERT\",\"cluster\":\"c1\",\"target\":\"t\","
        + "\"profile\":\"p1\",\"resource\":{\"group\":\"apps\",\"version\":\"v1\",\"kind\":"
        + "\"Deployment\"},\"namespace\":\"ns\",\"name\":\"a\",\"uid\":\"uid-a\","
        + "\"resourceVersion\":\"1\",\"observedAt\":\"2026-01-01T00:00:01Z\",\"contentHash\":"
        + "\"hash-a-1\",\"fields\":{\"seq\":1,\"image\":\"app:1\"},\"labels\":{\"app\":\"a\"},"
        + "\"annotations\":{}}");
    assertThat(RecordJson.parse(lines.get(0))).isEqualTo(a);
  }

  @Test
  void writesTheSameBytesAsEncodingEachLineForTextOfTheBasicPlane() throws Exception {
    List<Record> batch = List.of(withImage("a", "caf\u00e9 \u65e5\u672c \u2028\t\"q\"\u0001\\"),
        withImage("b", ""), record("t", "c", 3));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    StdoutSink.to("out", out).write(batch);

    StringBuilder expected = new StringBuilder();
    batch.forEach(r -> expected.append(Records.toJsonLine(r)).append('\n'));
    assertThat(out.toByteArray()).isEqualTo(expected.toString().getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void charactersBeyondTheBasicPlaneAndLoneSurrogatesAreEscapedAndReadBackAsTheyWere()
      throws Exception {
    // No UTF-8 byte sequence is a lone surrogate: encoding the line as text would write '?'.
    Record rocket = withImage("a", "go \ud83d\ude80");
    Record lone = withImage("b", "x\ud800y");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    StdoutSink.to("out", out).write(List.of(rocket, lone));

    List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
    assertThat(lines.get(0)).contains("go \\uD83D\\uDE80");
    assertThat(lines.get(1)).contains("x\\uD800y");
    assertThat(lines.stream().map(RecordJson::parse)).containsExactly(rocket, lone);
  }

  private static Record withImage(String name, String image) {
    Record r = record("t", name, 1);
    Map<String, JsonNode> fields = new LinkedHashMap<>(r.fields());
    fields.put("image", new TextNode(image));
    return new Record(r.op(), r.cluster(), r.target(), r.profile(), r.resource(), r.namespace(),
        r.name(), r.uid(), r.resourceVersion(), r.observedAt(), r.contentHash(), fields,
        r.labels(), r.annotations());
  }
}
