package io.kollect.export;

import static io.kollect.export.TestRecords.record;
import static org.assertj.core.api.Assertions.assertThat;

import io.cloudevents.CloudEvent;
import io.cloudevents.core.format.EventFormat;
import io.cloudevents.core.message.MessageReader;
import io.cloudevents.core.provider.EventFormatProvider;
import io.cloudevents.http.HttpMessageFactory;
import io.cloudevents.jackson.JsonFormat;
import io.kollect.extract.GroupVersionKind;
import io.kollect.extract.Record;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Records as CloudEvents: the documented attributes, the stable id, both content modes. */
class CloudEventRecordsTest {

  static final Record UPSERT = record("kollect-demo/deployments", "checkout", 3).withSequence(41);

  /** The record's JSON exactly as the default format carries it in its array. */
  static String defaultFormat(Record r) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    RecordJson.writeArray(List.of(r), out);
    String array = out.toString(StandardCharsets.UTF_8);
    return array.substring(1, array.length() - 1);
  }

  @Test
  void anUpsertCarriesTheDocumentedAttributesAndTheRecordAsData() throws Exception {
    CloudEvent e = CloudEventRecords.event(UPSERT);
    assertThat(e.getSpecVersion().toString()).isEqualTo("1.0");
    assertThat(e.getType()).isEqualTo("io.kollect.record.upsert");
    assertThat(e.getSource()).isEqualTo(URI.create("kollect://c1/kollect-demo/deployments"));
    assertThat(e.getSubject()).isEqualTo("apps/Deployment/ns/checkout");
    assertThat(e.getTime()).isEqualTo(UPSERT.observedAt().atOffset(ZoneOffset.UTC));
    assertThat(e.getDataContentType()).isEqualTo("application/json");
    assertThat(new String(e.getData().toBytes(), StandardCharsets.UTF_8))
        .isEqualTo(defaultFormat(UPSERT));
  }

  @Test
  void aDeleteIsOfTheDeleteTypeAndAClusterScopedCoreObjectHasEmptyGroupAndNamespace()
      throws Exception {
    Record node = new Record(io.kollect.extract.Op.UPSERT, "prod eu/1", "t", "p",
        new GroupVersionKind("", "v1", "Node"), null, "node-1", "u", "1", Instant.EPOCH, "h",
        Map.of(), Map.of(), Map.of(), 5L);
    CloudEvent e = CloudEventRecords.event(node.tombstone(Instant.EPOCH).withSequence(6));
    assertThat(e.getType()).isEqualTo("io.kollect.record.delete");
    assertThat(e.getSubject()).isEqualTo("/Node//node-1");
    // the cluster is percent-encoded; unreserved characters are kept
    assertThat(e.getSource().toString()).isEqualTo("kollect://prod%20eu%2F1/t");
  }

  @Test
  void theIdIsTheDocumentedHashOfClusterTargetKeyAndSequence() throws Exception {
    byte[] digest = MessageDigest.getInstance("SHA-256").digest(
        "c1\nkollect-demo/deployments\napps/Deployment/ns/checkout\n41"
            .getBytes(StandardCharsets.UTF_8));
    assertThat(CloudEventRecords.id(UPSERT))
        .isEqualTo(HexFormat.of().formatHex(digest).substring(0, 32));
  }

  @Test
  void aRetryOrHeartbeatOfOneStateKeepsItsIdAndANewSequenceGetsANewOne() {
    String id = CloudEventRecords.id(UPSERT);
    // a heartbeat repeats the state's sequence, observed later
    Record heartbeat = new Record(UPSERT.op(), UPSERT.cluster(), UPSERT.target(),
        UPSERT.profile(), UPSERT.resource(), UPSERT.namespace(), UPSERT.name(), UPSERT.uid(),
        UPSERT.resourceVersion(), UPSERT.observedAt().plusSeconds(3600), UPSERT.contentHash(),
        UPSERT.fields(), UPSERT.labels(), UPSERT.annotations(), UPSERT.sequence());
    assertThat(CloudEventRecords.id(heartbeat)).isEqualTo(id);
    assertThat(CloudEventRecords.id(UPSERT.withSequence(42))).isNotEqualTo(id);
    assertThat(CloudEventRecords.id(record("other/target", "checkout", 3).withSequence(41)))
        .isNotEqualTo(id);
  }

  @Test
  void theBatchedModeIsAJsonArrayOfStructuredEventsTheSdkReadsBack() throws Exception {
    Record second = record("kollect-demo/deployments", "cart", 1).withSequence(9);
    byte[] body = CloudEventRecords.batch(
        List.of(CloudEventRecords.event(UPSERT), CloudEventRecords.event(second)));
    var array = RecordJson.MAPPER.readTree(body);
    assertThat(array.isArray()).isTrue();
    assertThat(array).hasSize(2);
    // data is embedded as JSON, not base64, byte for byte the default format's record
    assertThat(new String(body, StandardCharsets.UTF_8)).contains("\"data\":"
        + defaultFormat(UPSERT));
    EventFormat json = EventFormatProvider.getInstance().resolveFormat(JsonFormat.CONTENT_TYPE);
    CloudEvent read = json.deserialize(RecordJson.MAPPER.writeValueAsBytes(array.get(1)));
    assertThat(read.getId()).isEqualTo(CloudEventRecords.id(second));
    assertThat(read.getSubject()).isEqualTo("apps/Deployment/ns/cart");
  }

  @Test
  void theBinaryModePutsTheAttributesInCeHeadersAndTheRecordInTheBody() throws Exception {
    CloudEventRecords.Binary binary = CloudEventRecords.binary(CloudEventRecords.event(UPSERT));
    assertThat(binary.headers()).containsEntry("ce-specversion", "1.0")
        .containsEntry("ce-id", CloudEventRecords.id(UPSERT))
        .containsEntry("ce-type", "io.kollect.record.upsert")
        .containsEntry("ce-source", "kollect://c1/kollect-demo/deployments")
        .containsEntry("ce-subject", "apps/Deployment/ns/checkout")
        .containsEntry("content-type", "application/json")
        .containsKey("ce-time");
    assertThat(new String(binary.body(), StandardCharsets.UTF_8)).isEqualTo(defaultFormat(UPSERT));
    MessageReader reader = HttpMessageFactory.createReader(binary.headers(), binary.body());
    CloudEvent read = reader.toEvent();
    assertThat(read.getTime()).isEqualTo(UPSERT.observedAt().atOffset(ZoneOffset.UTC));
  }
}
