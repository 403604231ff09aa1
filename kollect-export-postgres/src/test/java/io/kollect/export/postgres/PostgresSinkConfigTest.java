package io.kollect.export.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class PostgresSinkConfigTest {

  private static PostgresSinkConfig.Builder valid() {
    return PostgresSinkConfig.builder().url("jdbc:postgresql://pg:5432/inventory")
        .credentials("kollect", "secret");
  }

  @Test
  void defaultsAreTheDocumentedOnes() {
    PostgresSinkConfig c = valid().build();
    assertThat(c.schema()).isEqualTo("kollect");
    assertThat(c.history().enabled()).isFalse();
    assertThat(c.history().retention()).isEqualTo(Duration.ofDays(30));
    assertThat(c.tombstoneRetention()).isEqualTo(Duration.ofDays(1));
    assertThat(c.poolSize()).isEqualTo(4);
    assertThat(c.connectTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(c.writerIdentity()).startsWith("random-");
    assertThat(PostgresSink.defaultOptions().linger()).isLessThanOrEqualTo(Duration.ofMillis(5));
    assertThat(PostgresSink.defaultOptions().heartbeatInterval()).isZero();
  }

  @Test
  void settingsTheSinkCannotHonourAreRefusedNamingTheField() {
    assertThatThrownBy(() -> valid().url("jdbc:mysql://x/y").build())
        .hasMessageStartingWith("url:");
    assertThatThrownBy(() -> valid().schema("Kollect; DROP").build())
        .hasMessageStartingWith("schema:");
    assertThatThrownBy(() -> valid().poolSize(0).build()).hasMessageStartingWith("poolSize:");
    assertThatThrownBy(() -> valid().tombstoneRetention(Duration.ZERO).build())
        .hasMessageStartingWith("tombstoneRetention:");
    assertThatThrownBy(() -> valid().connectTimeout(Duration.ofMillis(10)).build())
        .hasMessageStartingWith("connectTimeout:");
    assertThatThrownBy(() -> new PostgresSinkConfig.Tls(null, () -> "cert", null))
        .hasMessageContaining("go together");
  }

  @Test
  void toStringShowsNoCredential() {
    assertThat(valid().build().toString()).doesNotContain("secret").contains("pg:5432");
  }
}
