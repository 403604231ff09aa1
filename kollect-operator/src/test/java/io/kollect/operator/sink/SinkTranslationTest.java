package io.kollect.operator.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kollect.export.FileSink;
import io.kollect.export.HttpSink;
import io.kollect.export.StdoutSink;
import io.kollect.operator.crd.KollectSink;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SinkTranslationTest {

  private final SinkTranslation translation = new SinkTranslation(null);

  private static KollectSink sink(String spec) {
    return KollectSinkYaml.parse("ns", "s", spec);
  }

  @Test
  void aShortenedMaxBackoffCapsTheRetryDelayOfSinksBuiltWhileItIsSetAndTheShippedOneIsTwoMinutes() {
    var shipped = translation.build("ns/s", sink("type: stdout"));
    assertThat(shipped.options().initialBackoff()).isEqualTo(Duration.ofMillis(500));
    assertThat(shipped.options().maxBackoff()).isEqualTo(Duration.ofMinutes(2));
    try {
      SinkTranslation.maxBackoff = Optional.of(Duration.ofSeconds(1));
      var capped = translation.build("ns/s", sink("type: stdout"));
      assertThat(capped.options().initialBackoff()).isEqualTo(Duration.ofMillis(500));
      assertThat(capped.options().maxBackoff()).isEqualTo(Duration.ofSeconds(1));
      SinkTranslation.maxBackoff = Optional.of(Duration.ofMillis(100));
      assertThat(translation.build("ns/s", sink("type: stdout")).options())
          .extracting(o -> o.initialBackoff(), o -> o.maxBackoff())
          .containsExactly(Duration.ofMillis(100), Duration.ofMillis(100));
    } finally {
      SinkTranslation.maxBackoff = Optional.empty();
    }
    assertThat(translation.build("ns/s", sink("type: stdout")).options().maxBackoff())
        .isEqualTo(Duration.ofMinutes(2));
  }

  @Test
  void eachTypeBuildsItsSinkWithBatchingAndHeartbeat() {
    var stdout = translation.build("ns/s", sink("type: stdout\nheartbeatInterval: 1h\nbatch: {maxSize: 10, linger: 250ms}"));
    assertThat(stdout.sink()).isInstanceOf(StdoutSink.class);
    assertThat(stdout.sink().name()).isEqualTo("ns/s");
    assertThat(stdout.options().heartbeatInterval()).isEqualTo(Duration.ofHours(1));
    assertThat(stdout.options().maxBatchSize()).isEqualTo(10);
    assertThat(stdout.options().linger()).isEqualTo(Duration.ofMillis(250));

    var file = translation.build("ns/s", sink("type: file\nfile: {path: /tmp/x.jsonl, maxBytes: 1000, maxFiles: 2}"));
    assertThat(file.sink()).isInstanceOf(FileSink.class);

    var http = translation.build("ns/s", sink("""
        type: http
        http:
          url: https://collector.example.com/v1/records
          timeout: 5s
          gzip: true
          headers: {X-Tenant: blue}
          bearerTokenSecretRef: {name: creds, key: token}
        """));
    assertThat(http.sink()).isInstanceOf(HttpSink.class);
    HttpSink h = (HttpSink) http.sink();
    assertThat(h.config().timeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(h.config().gzip()).isTrue();
    assertThat(h.config().bearerToken()).isNotNull();
  }

  @Test
  void problemsNameTheField() {
    assertThatThrownBy(() -> translation.build("ns/s", sink("type: file")))
        .hasMessage("spec.file.path: is required for type file");
    assertThatThrownBy(() -> translation.build("ns/s", sink("type: http")))
        .hasMessage("spec.http.url: is required for type http");
    assertThatThrownBy(() -> translation.build("ns/s", sink("type: http\nhttp: {url: 'ftp://x'}")))
        .hasMessageStartingWith("spec.http.url: must be an http or https URL");
    assertThatThrownBy(() -> translation.build("ns/s", sink("type: stdout\nbatch: {linger: soon}")))
        .hasMessageStartingWith("spec.batch.linger: 'soon' is not a duration");
    assertThatThrownBy(() -> translation.build("ns/s", sink("type: http\nhttp: {url: 'http://x', headers: {Authorization: x}}")))
        .hasMessageStartingWith("spec.http.headers: 'Authorization' is set by the sink itself");
    assertThatThrownBy(() -> translation.build("ns/s", sink("""
        type: http
        http:
          url: http://x
          bearerTokenSecretRef: {name: a, key: b}
          basicAuthSecretRef: {name: c}
        """))).hasMessageContaining("set at most one");
    assertThatThrownBy(() -> translation.build("ns/s", sink("type: file\nfile: {path: /x, maxFiles: -1}")))
        .hasMessageStartingWith("spec.file.maxFiles");
  }

  @Test
  void aPortOutsideTheValidRangeIsRefusedNamingTheField() {
    assertThatThrownBy(() -> translation.build("ns/s", sink("type: http\nhttp: {url: 'http://127.0.0.1:70000/x'}")))
        .hasMessage("spec.http.url: port 70000 is outside 1-65535");
    assertThatThrownBy(() -> translation.build("ns/s", sink("type: http\nhttp: {url: 'http://127.0.0.1:0/x'}")))
        .hasMessage("spec.http.url: port 0 is outside 1-65535");
    assertThat(translation.build("ns/s", sink("type: http\nhttp: {url: 'http://127.0.0.1:65535/x'}")).sink())
        .isInstanceOf(HttpSink.class);
  }

  @Test
  void theCrdPatternRefusesTheSamePortsAndCredentialsInTheUrl() {
    java.util.regex.Pattern url = java.util.regex.Pattern.compile(io.kollect.operator.crd.KollectSinkSpec.URL);
    assertThat(url.matcher("https://collector.example.com/v1").matches()).isTrue();
    assertThat(url.matcher("http://127.0.0.1:8080/ingest").matches()).isTrue();
    assertThat(url.matcher("http://[::1]:65535").matches()).isTrue();
    assertThat(url.matcher("http://127.0.0.1:65536/").matches()).isFalse();
    assertThat(url.matcher("http://127.0.0.1:0/").matches()).isFalse();
    assertThat(url.matcher("http://127.0.0.1:99999").matches()).isFalse();
    assertThat(url.matcher("https://user:pass@example.com/").matches()).isFalse();
  }

  @Test
  void aTlsBlockOnlyFitsASinkTypeThatSpeaksTlsWithAnHttpsUrl() {
    assertThatThrownBy(() -> translation.build("ns/s", sink("type: file\nfile: {path: /x}\ntls: {insecureSkipVerify: true}")))
        .hasMessage("spec.tls: type file does not speak TLS; remove the tls block");
    assertThatThrownBy(() -> translation.build("ns/s", sink("type: http\nhttp: {url: 'http://x'}\ntls: {insecureSkipVerify: true}")))
        .hasMessageStartingWith("spec.tls: the URL http://x is not https://");
  }
}
