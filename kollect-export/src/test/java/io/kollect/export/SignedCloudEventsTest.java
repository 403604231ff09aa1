package io.kollect.export;

import static io.kollect.export.TestRecords.record;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kollect.export.HttpSinkConfig.Format;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import io.kollect.extract.Records;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The http sink's CloudEvents, signed the Standard Webhooks way, end to end: a node receiver on
 * loopback verifies every request with that specification's own JavaScript library, answers 200
 * to a webhook-id it has seen (and ignores it), and refuses (401) only a bad signature or a
 * timestamp outside the library's tolerance. The sink signs with an old and a new key, as during a
 * rotation; the receiver knows only the new one.
 */
class SignedCloudEventsTest {

  static final String OLD_KEY = key(1);
  static final String NEW_KEY = key(2);
  static final Duration WAIT = Duration.ofSeconds(15);
  static final SinkOptions OPTIONS = SinkOptions.defaults()
      .withMaxBatchSize(100)
      .withLinger(Duration.ofMillis(20))
      .withHeartbeatInterval(Duration.ZERO)
      .withBackoff(Duration.ofMillis(50), Duration.ofMillis(200));

  static StandardWebhooksReceiver receiver;
  final CountingMetrics metrics = new CountingMetrics();
  Exporter exporter;
  int logged;

  static String key(int fill) {
    byte[] bytes = new byte[24];
    Arrays.fill(bytes, (byte) fill);
    return WebhookSigning.PREFIX + Base64.getEncoder().encodeToString(bytes);
  }

  @BeforeAll
  static void startReceiver() throws Exception {
    receiver = StandardWebhooksReceiver.start(NEW_KEY);
  }

  @AfterAll
  static void stopReceiver() {
    if (receiver != null) {
      receiver.close();
    }
  }

  @BeforeEach
  void start() throws Exception {
    exporter = Exporter.builder().metrics(metrics).closeTimeout(Duration.ofMillis(200)).build();
    logged = receiver.log().size(); // the receiver is shared: look only at this test's requests
  }

  @AfterEach
  void stop() {
    exporter.close();
  }

  private HttpSink sink(Format format, Duration timeout) {
    return new HttpSink("ce", HttpSinkConfig.of(receiver.uri()).withTimeout(timeout)
        .withFormat(format).withSigning(WebhookSigning.keys(OLD_KEY, NEW_KEY)));
  }

  private List<JsonNode> requests() throws Exception {
    List<JsonNode> all = receiver.log();
    return all.subList(logged, all.size());
  }

  private static List<JsonNode> events(List<JsonNode> requests) {
    List<JsonNode> events = new ArrayList<>();
    requests.forEach(r -> r.path("events").forEach(events::add));
    return events;
  }

  private void converge(List<Record> desired) {
    exporter.converge("t", Set.of("ce"), desired);
    assertThat(exporter.awaitIdle(WAIT)).isTrue();
  }

  @ParameterizedTest
  @EnumSource(value = Format.class, names = {"CLOUDEVENTS_BATCH", "CLOUDEVENTS_BINARY"})
  void everyChangeArrivesOnceAsAVerifiedCloudEventWithItsStableId(Format format) throws Exception {
    exporter.addSink(sink(format, Duration.ofSeconds(5)), OPTIONS);
    List<Record> desired = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      desired.add(record("t", "obj-" + i, 1));
    }
    converge(desired);
    // 10 objects deleted, 5 changed
    List<Record> next = new ArrayList<>(desired.subList(10, 30));
    for (int i = 10; i < 15; i++) {
      next.set(i - 10, record("t", "obj-" + i, 2));
    }
    converge(next);

    List<JsonNode> requests = requests();
    assertThat(requests).allSatisfy(r -> {
      assertThat(r.path("status").asInt()).as(r.toString()).isEqualTo(200);
      assertThat(r.path("duplicate").asBoolean()).isFalse();
      assertThat(r.path("contentTypes").asInt()).as("Content-Type headers").isEqualTo(1);
    });
    if (format == Format.CLOUDEVENTS_BINARY) {
      assertThat(requests).hasSize(45);
    }
    List<JsonNode> events = events(requests);
    assertThat(events).hasSize(45);
    Set<String> ids = new HashSet<>();
    int deletes = 0;
    for (JsonNode e : events) {
      JsonNode a = e.path("attributes");
      Record data = Records.fromJson(e.path("data").asText());
      assertThat(ids.add(a.path("id").asText())).as("event id seen once").isTrue();
      assertThat(a.path("id").asText()).isEqualTo(CloudEventRecords.id(data));
      assertThat(a.path("specversion").asText()).isEqualTo("1.0");
      assertThat(a.path("type").asText()).isEqualTo(data.op() == Op.DELETE
          ? "io.kollect.record.delete" : "io.kollect.record.upsert");
      assertThat(a.path("source").asText()).isEqualTo("kollect://c1/t");
      assertThat(a.path("subject").asText()).isEqualTo(data.key());
      assertThat(Instant.parse(a.path("time").asText())).isEqualTo(data.observedAt());
      assertThat(a.path("datacontenttype").asText()).startsWith("application/json");
      assertThat(data.sequence()).isNotNull();
      deletes += data.op() == Op.DELETE ? 1 : 0;
    }
    assertThat(deletes).isEqualTo(10);
    assertThat(metrics.get("dropped", "ce")).isZero();
  }

  @Test
  void aRetryAfterATimeoutKeepsItsIdWithAFreshTimestampAndIsAcceptedAsADuplicate()
      throws Exception {
    // the receiver takes the first request but answers after the sink has given up on it
    receiver.stall(1, Duration.ofMillis(2500));
    exporter.addSink(sink(Format.CLOUDEVENTS_BATCH, Duration.ofMillis(1200)), OPTIONS);
    List<Record> desired = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      desired.add(record("t", "late-" + i, 1));
    }
    converge(desired);

    List<JsonNode> requests = requests();
    assertThat(requests).hasSize(2);
    JsonNode first = requests.get(0);
    JsonNode retry = requests.get(1);
    assertThat(first.path("stalled").asInt()).isEqualTo(2500);
    assertThat(retry.path("id").asText()).isEqualTo(first.path("id").asText());
    assertThat(retry.path("timestamp").asLong()).isGreaterThan(first.path("timestamp").asLong());
    assertThat(retry.path("status").asInt()).isEqualTo(200);
    assertThat(retry.path("duplicate").asBoolean()).isTrue();
    assertThat(events(requests)).hasSize(5); // taken once, from the first request
    assertThat(metrics.get("failedRetryable", "ce")).isEqualTo(5);
    assertThat(metrics.get("failedPermanent", "ce")).isZero();
    assertThat(metrics.get("dropped", "ce")).isZero();
  }

  @Test
  void aTamperedBodyOrAStaleTimestampIsRefusedWhileTheSignedOriginalIsAccepted()
      throws Exception {
    byte[] body = "[{\"op\":\"UPSERT\",\"name\":\"a\"}]".getBytes(StandardCharsets.UTF_8);
    byte[] tampered = "[{\"op\":\"DELETE\",\"name\":\"a\"}]".getBytes(StandardCharsets.UTF_8);
    List<byte[]> keys = WebhookSigning.keys(NEW_KEY).read();
    long now = Instant.now().getEpochSecond();
    String signature = WebhookSigning.signatures(keys, "tamper-1", now, body);

    assertThat(receiver.post(tampered, "application/json", "webhook-id", "tamper-1",
        "webhook-timestamp", Long.toString(now), "webhook-signature", signature)).isEqualTo(401);
    long stale = now - 600; // outside the library's tolerance of five minutes
    assertThat(receiver.post(body, "application/json", "webhook-id", "tamper-2",
        "webhook-timestamp", Long.toString(stale), "webhook-signature",
        WebhookSigning.signatures(keys, "tamper-2", stale, body))).isEqualTo(401);
    assertThat(receiver.post(body, "application/json", "webhook-id", "tamper-1",
        "webhook-timestamp", Long.toString(now), "webhook-signature", signature)).isEqualTo(200);

    // the default records format, signed: the webhook-id is a hash of the body
    HttpSink records = new HttpSink("records", HttpSinkConfig.of(receiver.uri())
        .withSigning(WebhookSigning.keys(OLD_KEY, NEW_KEY)));
    records.write(List.of(record("t", "plain", 1).withSequence(7)));

    List<JsonNode> requests = requests();
    assertThat(requests).extracting(r -> r.path("status").asInt()).containsExactly(401, 401, 200,
        200);
    assertThat(requests.get(0).path("error").asText()).isEqualTo("No matching signature found");
    assertThat(requests.get(1).path("error").asText()).isEqualTo("Message timestamp too old");
    assertThat(requests.get(0).has("events")).isFalse();
    assertThat(requests.get(3).path("events").get(0).path("record").path("name").asText())
        .isEqualTo("plain");
  }
}
