package io.kollect.operator.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kollect.export.HttpSink;
import io.kollect.export.HttpSinkConfig;
import io.kollect.operator.crd.HttpFormat;
import io.kollect.operator.crd.KollectSink;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code spec.http.format} and {@code spec.http.signing} without Secrets. */
class WebhookTranslationTest {

  private final SinkTranslation translation = new SinkTranslation(null);

  private static KollectSink sink(String spec) {
    return KollectSinkYaml.parse("shop", "hook", spec);
  }

  @Test
  void theThreeFormatNamesOfTheSpecAreTheHttpSinksThreeFormats() {
    assertThat(WebhookTranslation.format(null)).isEqualTo(HttpSinkConfig.Format.RECORDS);
    assertThat(WebhookTranslation.format(HttpFormat.RECORDS))
        .isEqualTo(HttpSinkConfig.Format.RECORDS);
    assertThat(WebhookTranslation.format(HttpFormat.CLOUDEVENTS))
        .isEqualTo(HttpSinkConfig.Format.CLOUDEVENTS_BATCH);
    assertThat(WebhookTranslation.format(HttpFormat.CLOUDEVENTS_BINARY))
        .isEqualTo(HttpSinkConfig.Format.CLOUDEVENTS_BINARY);
    var built = translation.build("shop/hook", sink("""
        type: http
        http: {url: "http://receiver:8080/events", format: cloudevents-binary}
        """));
    assertThat(built.sink()).isInstanceOf(HttpSink.class);
    HttpSinkConfig config = ((HttpSink) built.sink()).config();
    assertThat(config.format()).isEqualTo(HttpSinkConfig.Format.CLOUDEVENTS_BINARY);
    assertThat(config.signing()).isNull();
  }

  @Test
  void aFormatTheSpecDoesNotKnowIsRefusedWhenTheSinkIsRead() {
    assertThatThrownBy(() -> sink("""
        type: http
        http: {url: "http://receiver:8080/events", format: cloudevents-structured}
        """)).hasMessageContaining("cloudevents-structured");
  }

  @Test
  void oneSecretValueHoldsSeveralKeysSeparatedBySpacesCommasOrNewlines() {
    assertThat(WebhookTranslation.keys("whsec_a\nwhsec_b, whsec_c  \n")).containsExactly(
        "whsec_a", "whsec_b", "whsec_c");
    assertThat(WebhookTranslation.keys(" whsec_a ")).isEqualTo(List.of("whsec_a"));
  }

  @Test
  void signingWithoutASecretNameIsReportedNamingTheField() {
    assertThatThrownBy(() -> translation.build("shop/hook", sink("""
        type: http
        http: {url: "http://receiver:8080/events", signing: {secretRef: {key: k}}}
        """))).hasMessage("spec.http.signing.secretRef.name: is required");
  }
}
