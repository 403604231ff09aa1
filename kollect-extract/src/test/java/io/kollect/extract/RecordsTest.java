package io.kollect.extract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RecordsTest {

  @Test
  void jsonLinesUseTheDocumentedKeyOrderAndRoundTrip() {
    Record r = TestObjects.profile(CompiledProfileTest.DEPLOYMENTS)
        .extract(TestObjects.resource("deployment.yaml"), TestObjects.CTX).orElseThrow();
    String line = Records.toJsonLine(r);
    assertThat(line).startsWith("{\"op\":\"UPSERT\",\"cluster\":\"c1\",\"target\":\"ns/t1\",\"profile\":\"test\","
        + "\"resource\":{\"group\":\"apps\",\"version\":\"v1\",\"kind\":\"Deployment\"},\"namespace\":\"shop\","
        + "\"name\":\"checkout\",\"uid\":\"5f1c2a7e-1111-4c3b-9d0e-0a1b2c3d4e5f\",\"resourceVersion\":\"48213\","
        + "\"observedAt\":\"2024-05-01T12:00:00Z\",\"contentHash\":\"" + r.contentHash() + "\",\"fields\":{");
    assertThat(line).doesNotContain("\n").doesNotContain("\"key\"");
    assertThat(Records.fromJson(line)).isEqualTo(r);
  }

  @Test
  void tombstonesRoundTripWithNullHash() {
    Record r = TestObjects.profile(CompiledProfileTest.DEPLOYMENTS)
        .extract(TestObjects.resource("deployment.yaml"), TestObjects.CTX).orElseThrow()
        .tombstone(java.time.Instant.parse("2024-05-02T00:00:00Z"));
    Record back = Records.fromJson(Records.toJsonLine(r));
    assertThat(back).isEqualTo(r);
    assertThat(back.op()).isEqualTo(Op.DELETE);
  }

  @Test
  void bytesAreTheUtf8OfTheLineAndATombstoneKeepsItsNullHash() {
    Record r = TestObjects.profile(CompiledProfileTest.DEPLOYMENTS)
        .extract(TestObjects.resource("deployment.yaml"), TestObjects.CTX).orElseThrow();
    Record tombstone = r.tombstone(java.time.Instant.parse("2024-05-02T00:00:00Z"));

    assertThat(Records.toJsonBytes(r))
        .isEqualTo(Records.toJsonLine(r).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    assertThat(new String(Records.toJsonBytes(tombstone), java.nio.charset.StandardCharsets.UTF_8))
        .isEqualTo(Records.toJsonLine(tombstone)).contains("\"contentHash\":null");
  }

  @Test
  void malformedRecordsAreRejectedClearly() {
    assertThatThrownBy(() -> Records.fromJson("{\"op\":\"UPSERT\""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("not a Kollect record");
  }
}
