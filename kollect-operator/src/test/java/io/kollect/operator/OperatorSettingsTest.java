package io.kollect.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kollect.operator.http.BindAddress;
import io.kollect.operator.http.InventoryAuth;
import io.kollect.operator.leader.LeaderElectionSettings;
import io.kollect.operator.metrics.OperatorMetrics;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What the operator's flags set on the engine and its sinks. */
class OperatorSettingsTest {

  private static OperatorConfig config() {
    return new OperatorConfig("c", 1, Duration.ofHours(1), BindAddress.off(), BindAddress.off(),
        LeaderElectionSettings.disabled(), Set.of(), Set.of(), InventoryAuth.disabled(),
        Optional.empty(), "kollect-system", Optional.empty());
  }

  @Test
  void stdoutRecordsAreWrittenWithoutLinger() {
    assertThat(KollectOperator.STDOUT_OPTIONS.linger()).isZero();
  }

  @Test
  void informersListInPagesOfFiveHundredUnlessTheFlagSaysOtherwise() {
    OperatorMetrics metrics = new OperatorMetrics();
    assertThat(KollectOperator.informerOptions(config(), metrics).listPageSize()).isEqualTo(500);
    assertThat(KollectOperator.informerOptions(config().withListPageSize(42), metrics)
        .listPageSize()).isEqualTo(42);
    assertThatThrownBy(() -> config().withListPageSize(0))
        .hasMessageContaining("--list-page-size");
  }

  @Test
  void oneClusterWideInformerServesATypePastEightNamespacesUnlessTheFlagSaysOtherwise() {
    OperatorMetrics metrics = new OperatorMetrics();
    assertThat(KollectOperator.informerOptions(config(), metrics).clusterWideThreshold())
        .isEqualTo(8);
    assertThat(KollectOperator.informerOptions(config().withClusterWideThreshold(0), metrics)
        .clusterWideThreshold()).isZero();
    assertThatThrownBy(() -> config().withClusterWideThreshold(-1))
        .hasMessageContaining("--informer-cluster-wide-threshold");
  }

  @Test
  void guardsDefaultToFiveFailuresTenMinutesAndTenThousandObjects() {
    assertThat(config().guards()).isEqualTo(new GuardSettings(5, Duration.ofMinutes(10), 10_000));
    GuardSettings custom = new GuardSettings(0, Duration.ofSeconds(30), 50);
    assertThat(config().withGuards(custom).guards()).isEqualTo(custom);
    assertThat(config().withGuards(custom).withListPageSize(7).guards()).isEqualTo(custom);
  }

  @Test
  void theClientDefaultsAllowAThousandTargetsStatusesWithinAMinute() {
    // One status write per target at start (StartupApiLoadIT): 1000 writes at the default rate.
    assertThat(1000 / KubeClients.DEFAULT_QPS).isLessThanOrEqualTo(30);
    assertThat(KubeClients.DEFAULT_BURST).isGreaterThanOrEqualTo((int) KubeClients.DEFAULT_QPS);
  }
}
