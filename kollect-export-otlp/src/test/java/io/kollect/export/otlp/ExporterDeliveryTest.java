package io.kollect.export.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.export.Exporter;
import io.kollect.export.SinkOptions;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import io.opentelemetry.proto.logs.v1.LogRecord;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The otlp sink under kollect-export's Exporter: the exporter's retries deliver an outage away. */
class ExporterDeliveryTest {

  @ParameterizedTest
  @EnumSource(OtlpSinkConfig.Protocol.class)
  void aReceiverOutageIsRetriedByTheExporterAndEveryObjectArrivesOnce(
      OtlpSinkConfig.Protocol protocol) throws Exception {
    List<Record> desired = IntStream.range(0, 20).mapToObj(i -> new Record(Op.UPSERT,
        Records.CLUSTER, Records.TARGET, "default", Records.CONFIG_MAP, "load", "cm-" + i,
        "uid-" + i, "1", Records.T0, "h-" + i, Map.of(), Map.of(), Map.of())).toList();
    try (OtlpReceiver receiver = OtlpReceiver.start(protocol);
        Exporter exporter = Exporter.builder().build()) {
      receiver.answerNext(new OtlpReceiver.Unavailable(), new OtlpReceiver.Unavailable());
      exporter.addSink(new OtlpSink("otel", OtlpSinkConfig.builder()
          .endpoint(receiver.endpoint()).protocol(protocol).timeout(Duration.ofSeconds(5))
          .build()), SinkOptions.defaults().withLinger(Duration.ofMillis(10))
          .withBackoff(Duration.ofMillis(50), Duration.ofMillis(200))
          .withHeartbeatInterval(Duration.ZERO));

      exporter.converge(Records.TARGET, Set.of("otel"), desired);

      assertThat(exporter.awaitIdle(Duration.ofSeconds(20))).isTrue();
      assertThat(receiver.refused()).isEqualTo(2);
      List<LogRecord> delivered = receiver.received().stream()
          .flatMap(r -> r.request().getResourceLogs(0).getScopeLogs(0).getLogRecordsList()
              .stream()).toList();
      assertThat(delivered).extracting(r -> (String) ((Map<?, ?>) AnyValues.map(
          r.getAttributesList()).get("entity.id")).get("k8s.configmap.name"))
          .containsExactlyInAnyOrderElementsOf(desired.stream().map(Record::name).toList());
      assertThat(delivered).allSatisfy(r -> assertThat(r.getEventName())
          .isEqualTo("entity.state"));
    }
  }
}
