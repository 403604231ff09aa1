package io.kollect.export.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kollect.export.SinkException;
import io.kollect.export.kafka.KafkaSinkConfig.Sasl;
import io.kollect.export.kafka.KafkaSinkConfig.SaslMechanism;
import io.kollect.export.kafka.KafkaSinkConfig.Tls;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** TLS and SASL material from suppliers: what is read, compared and reported (no broker). */
class CredentialsTest {

  private static KafkaSinkConfig.Builder config() {
    return KafkaSinkConfig.builder().bootstrapServers("127.0.0.1:1").topic("t")
        .deliveryTimeout(Duration.ofSeconds(1));
  }

  @Test
  void theSuppliersAnswerBecomesTheProducersSecuritySettings() throws Exception {
    AtomicReference<String> password = new AtomicReference<>("first");
    KafkaSinkConfig c = config()
        .tls(new Tls(() -> "ca-pem", null, null))
        .sasl(new Sasl(SaslMechanism.SCRAM_SHA_512, () -> " kollect\n", password::get))
        .build();
    assertThat((String) ClientProperties.producer(c, Credentials.read(c), "c")
        .get("sasl.jaas.config")).contains("username=\"kollect\" password=\"first\"");
    password.set("second");
    assertThat((String) ClientProperties.producer(c, Credentials.read(c), "c")
        .get("sasl.jaas.config")).contains("password=\"second\"");
    assertThat(ClientProperties.producer(c, Credentials.read(c), "c"))
        .containsEntry("ssl.truststore.certificates", "ca-pem")
        .containsEntry("security.protocol", "SASL_SSL");
  }

  @Test
  void theFingerprintChangesExactlyWhenAValueDoesAndNothingPrintsTheValues() throws Exception {
    AtomicReference<String> cert = new AtomicReference<>("cert-1");
    AtomicReference<String> password = new AtomicReference<>("pw-1");
    KafkaSinkConfig c = config()
        .tls(new Tls(() -> "ca", cert::get, () -> "key"))
        .sasl(new Sasl(SaslMechanism.SCRAM_SHA_256, () -> "u", password::get))
        .build();
    Credentials first = Credentials.read(c);
    assertThat(Credentials.read(c).sameAs(first)).isTrue();
    cert.set("cert-2");
    Credentials renewed = Credentials.read(c);
    assertThat(renewed.sameAs(first)).isFalse();
    password.set("pw-2");
    assertThat(Credentials.read(c).sameAs(renewed)).isFalse();
    // a value moving from one field to the next is a change too (length-prefixed fingerprint)
    KafkaSinkConfig ab = config().sasl(new Sasl(SaslMechanism.PLAIN, "ab", "c")).build();
    KafkaSinkConfig a = config().sasl(new Sasl(SaslMechanism.PLAIN, "a", "bc")).build();
    assertThat(Credentials.read(ab).sameAs(Credentials.read(a))).isFalse();
    assertThat(first.toString()).isEqualTo("Credentials[redacted]");
    assertThat(c.toString()).doesNotContain("pw-").doesNotContain("cert-");
  }

  @Test
  void aSupplierThatThrowsFailsTheWriteRetryablyNamingTheFieldNotTheValue() {
    KafkaSinkConfig c = config()
        .sasl(new Sasl(SaslMechanism.SCRAM_SHA_512, () -> "kollect", () -> {
          throw new IllegalStateException("the password is hunter2");
        }))
        .build();
    try (KafkaSink sink = new KafkaSink("fleet", c)) {
      assertThatThrownBy(() -> sink.write(List.of(InventoryRecords.configMap("cm-7", 1)
          .withSequence(1))))
          .isInstanceOfSatisfying(SinkException.class, e -> {
            assertThat(e.retryable()).isTrue();
            assertThat(e).hasMessage("kafka 127.0.0.1:1: cannot read sasl.password"
                + " (IllegalStateException)");
          });
      assertThat(sink.checkTopic().message()).isEqualTo("cannot check topic t on 127.0.0.1:1:"
          + " cannot read sasl.password (IllegalStateException)");
    }
  }

  @Test
  void anEmptyCertificateIsNamedAsMissing() {
    KafkaSinkConfig c = config().tls(new Tls(() -> "ca", () -> " ", () -> "key")).build();
    assertThatThrownBy(() -> Credentials.read(c)).hasMessage("tls.clientCertPem is missing (empty)");
  }

  @Test
  void theValueTakingConstructorsStillCheckWhatTheyAreGiven() {
    assertThatThrownBy(() -> new Sasl(SaslMechanism.PLAIN, " ", "p"))
        .hasMessage("sasl: username and password must be set");
    assertThatThrownBy(() -> new Sasl(SaslMechanism.PLAIN, "u", (String) null))
        .hasMessage("sasl: username and password must be set");
    assertThatThrownBy(() -> new Tls("ca", "cert", null))
        .hasMessage("tls: clientCertPem and clientKeyPem go together");
    assertThatThrownBy(() -> config().credentialsCheckInterval(Duration.ofSeconds(-1)).build())
        .hasMessageStartingWith("credentialsCheckInterval: must not be negative");
  }
}
