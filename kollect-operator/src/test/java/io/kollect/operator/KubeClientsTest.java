package io.kollect.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class KubeClientsTest {

  @Test
  void rateLimitLetsABurstThroughThenMakesCallersWait() {
    KubeClients.RateLimit limit = new KubeClients.RateLimit(1, 3);
    assertThat(limit.reserve()).isZero();
    assertThat(limit.reserve()).isZero();
    assertThat(limit.reserve()).isZero();
    // The fourth request within the same instant waits about one token interval (1 s at 1 qps).
    assertThat(limit.reserve()).isGreaterThan(500_000_000L);
    // and the fifth queues behind it.
    assertThat(limit.reserve()).isGreaterThan(1_500_000_000L);
  }

  @Test
  void nonsensicalLimitsAreRejectedNamingTheFlag() {
    assertThatThrownBy(() -> new KubeClients.RateLimit(0, 1)).hasMessageContaining("--kube-api-qps");
    assertThatThrownBy(() -> new KubeClients.RateLimit(1, 0)).hasMessageContaining("--kube-api-burst");
  }

  @Test
  void aMissingKubeconfigIsNamed() {
    assertThatThrownBy(() -> KubeClients.create(Optional.of(java.nio.file.Path.of("/no/such/kubeconfig")),
        Optional.empty(), 5, 10)).hasMessageContaining("--kubeconfig").hasMessageContaining("/no/such/kubeconfig");
  }
}
