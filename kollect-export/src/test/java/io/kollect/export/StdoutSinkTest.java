package io.kollect.export;

import static io.kollect.export.TestRecords.record;
import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.extract.Record;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
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
}
