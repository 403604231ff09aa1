package io.kollect.operator.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kollect.operator.crd.KollectSink;
import io.kollect.operator.crd.KollectSinkSpec;
import io.kollect.operator.crd.PostgresSinkSpec;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * KollectSink {@code type: postgres}: what is refused before any Secret is read, and the shipped
 * defaults. Building a sink from Secrets is proven on a real API server (PostgresSinkOperatorIT).
 */
class PostgresSinkTranslationTest {

  private final SinkTranslation translation = new SinkTranslation(null);

  private static KollectSink sink(String spec) {
    return KollectSinkYaml.parse("platform", "fleet", spec);
  }

  @Test
  void theDocumentedShapeParsesIntoThePostgresBlock() {
    KollectSinkSpec spec = sink("""
        type: postgres
        postgres:
          url: jdbc:postgresql://pg.platform:5432/inventory
          credentialsSecretRef: {name: kollect-pg}
          schema: kollect
          history: {enabled: true, retention: 30d}
        tls: {caSecretRef: {name: pg-ca}}
        """).getSpec();
    assertThat(spec.type()).isEqualTo(KollectSinkSpec.Type.POSTGRES);
    assertThat(spec.postgres()).isEqualTo(new PostgresSinkSpec(
        "jdbc:postgresql://pg.platform:5432/inventory", null,
        new KollectSinkSpec.BasicAuthSecretRef("kollect-pg", null, null), "kollect",
        new PostgresSinkSpec.History(true, "30d"), null));
    assertThat(spec.tls().caSecretRef().name()).isEqualTo("pg-ca");
  }

  @Test
  void aPostgresSinkDeliversWithLinger5msAndNoHeartbeatUnlessTheSpecSaysOtherwise() {
    var defaults = SinkTranslation.options(sink("type: postgres").getSpec());
    assertThat(defaults.linger()).isEqualTo(Duration.ofMillis(5));
    assertThat(defaults.heartbeatInterval()).isEqualTo(Duration.ZERO);
    var overridden = SinkTranslation.options(sink(
        "type: postgres\nbatch: {linger: 20ms}\nheartbeatInterval: 1h").getSpec());
    assertThat(overridden.linger()).isEqualTo(Duration.ofMillis(20));
    assertThat(overridden.heartbeatInterval()).isEqualTo(Duration.ofHours(1));
  }

  @Test
  void eachUnusablePostgresSettingIsReportedNamingItsField() {
    assertThatThrownBy(() -> translation.build("p/f", sink("type: postgres")))
        .hasMessage("spec.postgres: is required for type postgres");
    assertThatThrownBy(() -> translation.build("p/f", sink(
        "type: postgres\npostgres: {credentialsSecretRef: {name: pg}}")))
        .hasMessageStartingWith("spec.postgres.url: is required");
    assertThatThrownBy(() -> translation.build("p/f", sink("""
        type: postgres
        postgres:
          url: jdbc:postgresql://pg/inventory
          urlSecretRef: {name: pg-url, key: url}
          credentialsSecretRef: {name: pg}
        """))).hasMessageStartingWith("spec.postgres.url, spec.postgres.urlSecretRef: set one");
    assertThatThrownBy(() -> translation.build("p/f", sink(
        "type: postgres\npostgres: {url: \"postgresql://pg/inventory\", credentialsSecretRef: {name: pg}}")))
        .hasMessageStartingWith("spec.postgres.url: must be a jdbc:postgresql://");
    assertThatThrownBy(() -> translation.build("p/f", sink(
        "type: postgres\npostgres: {url: \"jdbc:postgresql://pg/inv?user=a&password=b\", credentialsSecretRef: {name: pg}}")))
        .hasMessage("spec.postgres.url: holds a password; put the credentials in the Secret of "
            + "credentialsSecretRef")
        .hasMessageNotContaining("password=b");
    assertThatThrownBy(() -> translation.build("p/f", sink(
        "type: postgres\npostgres: {url: \"jdbc:postgresql://pg/inventory\"}")))
        .hasMessageStartingWith("spec.postgres.credentialsSecretRef: is required");
  }

  @Test
  void historyRetentionIsGivenInDaysOrAsADuration() {
    assertThat(PostgresSinkTranslation.retention("f", "30d")).isEqualTo(Duration.ofDays(30));
    assertThat(PostgresSinkTranslation.retention("f", "36h")).isEqualTo(Duration.ofHours(36));
    assertThatThrownBy(() -> PostgresSinkTranslation.retention("spec.postgres.history.retention",
        "a month")).hasMessageStartingWith("spec.postgres.history.retention: 'a month' is not");
  }
}
