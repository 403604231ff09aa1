package io.kollect.operator.sink;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.kollect.export.StdoutSink;
import io.kollect.export.otlp.OtlpReceiver;
import io.kollect.export.otlp.OtlpSink;
import io.kollect.export.otlp.OtlpSinkConfig;
import io.kollect.extract.GroupVersionKind;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Partial successes of otlp sinks, against kollect-export-otlp's loopback OTLP receiver: counted
 * across rebuilds of a sink (a Prometheus counter never goes back), dropped with the sink.
 */
class OtlpSinkReportsTest {

  private static final List<Record> BATCH = List.of(new Record(Op.UPSERT, "c", "ns/t", "p",
      new GroupVersionKind("", "v1", "ConfigMap"), "ns", "cm", "uid-1", "1", Instant.EPOCH, "h",
      Map.of("v", JsonNodeFactory.instance.textNode("1")), Map.of(), Map.of(), 1L));

  private static double rejected(SimpleMeterRegistry registry) {
    var counter = registry.find(OtlpSinkReports.REJECTED).tag("sink", "ns/otel").functionCounter();
    return counter == null ? -1 : counter.count();
  }

  @Test
  void rejectedLogRecordsAddUpAcrossRebuildsOfTheSinkAndGoWithIt() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    OtlpSinkReports reports = new OtlpSinkReports(registry);
    try (OtlpReceiver receiver = OtlpReceiver.start(OtlpSinkConfig.Protocol.HTTP_PROTOBUF);
        OtlpSink first = new OtlpSink("ns/otel", OtlpSinkConfig.builder()
            .endpoint(receiver.endpoint()).build());
        OtlpSink second = new OtlpSink("ns/otel", OtlpSinkConfig.builder()
            .endpoint(receiver.endpoint()).build())) {
      reports.put("ns/otel", first);
      assertThat(rejected(registry)).isZero();
      assertThat(reports.lastPartialSuccess("ns/otel")).isNull();

      receiver.answerNext(new OtlpReceiver.Partial(2, "over quota"));
      first.write(BATCH);
      assertThat(rejected(registry)).isEqualTo(2);
      assertThat(reports.lastPartialSuccess("ns/otel").errorMessage()).isEqualTo("over quota");

      // the KollectSink changed: a new sink under the same name starts without a partial success
      reports.put("ns/otel", second);
      assertThat(reports.lastPartialSuccess("ns/otel")).isNull();
      receiver.answerNext(new OtlpReceiver.Partial(3, "too long"));
      second.write(BATCH);
      assertThat(rejected(registry)).isEqualTo(5);
      assertThat(registry.find(OtlpSinkReports.PARTIAL).tag("sink", "ns/otel").functionCounter()
          .count()).isEqualTo(2);

      // turned into another type: its counters go
      reports.put("ns/otel", new StdoutSink("ns/otel"));
      assertThat(rejected(registry)).isEqualTo(-1);
      assertThat(reports.lastPartialSuccess("ns/otel")).isNull();
    }
  }
}
