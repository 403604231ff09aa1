package io.kollect.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kollect.operator.http.InventoryAuth;
import io.kollect.operator.metrics.OperatorMetrics;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What the operator's flags set on the engine and its sinks. */
class OperatorSettingsTest {

  private static OperatorConfig config() {
    return OperatorConfig.builder().clusterName("c").workers(1).resyncPeriod(Duration.ofHours(1))
        .inventoryAuth(InventoryAuth.disabled()).operatorNamespace("kollect-system").build();
  }

  @Test
  void stdoutRecordsAreWrittenWithoutLinger() {
    assertThat(KollectOperator.STDOUT_OPTIONS.linger()).isZero();
  }

  @Test
  void informersListInPagesOfFiveHundredUnlessTheFlagSaysOtherwise() {
    OperatorMetrics metrics = new OperatorMetrics();
    assertThat(KollectOperator.informerOptions(config(), metrics).listPageSize()).isEqualTo(500);
    assertThat(KollectOperator.informerOptions(config().toBuilder().listPageSize(42).build(),
        metrics)
        .listPageSize()).isEqualTo(42);
    assertThatThrownBy(() -> config().toBuilder().listPageSize(0).build())
        .hasMessageContaining("--list-page-size");
  }

  @Test
  void oneClusterWideInformerServesATypePastEightNamespacesUnlessTheFlagSaysOtherwise() {
    OperatorMetrics metrics = new OperatorMetrics();
    assertThat(KollectOperator.informerOptions(config(), metrics).clusterWideThreshold())
        .isEqualTo(8);
    assertThat(KollectOperator.informerOptions(config().toBuilder().clusterWideThreshold(0)
        .build(), metrics)
        .clusterWideThreshold()).isZero();
    assertThatThrownBy(() -> config().toBuilder().clusterWideThreshold(-1).build())
        .hasMessageContaining("--informer-cluster-wide-threshold");
  }

  @Test
  void guardsDefaultToFiveFailuresTenMinutesAndTenThousandObjects() {
    assertThat(config().guards()).isEqualTo(new GuardSettings(5, Duration.ofMinutes(10), 10_000));
    GuardSettings custom = new GuardSettings(0, Duration.ofSeconds(30), 50);
    assertThat(config().toBuilder().guards(custom).build().guards()).isEqualTo(custom);
    assertThat(config().toBuilder().guards(custom).listPageSize(7).build().guards())
        .isEqualTo(custom);
  }

  @Test
  void theClientDefaultsAllowAThousandTargetsStatusesWithinAMinute() {
    // One status write per target at start (StartupApiLoadIT): 1000 writes at the default rate.
    assertThat(1000 / KubeClients.DEFAULT_QPS).isLessThanOrEqualTo(30);
    assertThat(KubeClients.DEFAULT_BURST).isGreaterThanOrEqualTo((int) KubeClients.DEFAULT_QPS);
  }
}
