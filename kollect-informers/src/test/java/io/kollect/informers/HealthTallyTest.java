package io.kollect.informers;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.ConnectException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** How the informers' signals add up to one connection health, the worst problem first. */
class HealthTallyTest {

  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final ResourceType DEPLOY = new ResourceType("apps", "v1", "Deployment");
  private static final ResourceType CM = new ResourceType("", "v1", "ConfigMap");

  private static WatchLiveness liveness() {
    return new WatchLiveness(Duration.ofSeconds(5), Clock.fixed(T0, ZoneOffset.UTC), r -> {});
  }

  @Test
  void healthyWatchesReportTheirTypesAndTheLatestContact() {
    HealthTally tally = new HealthTally();
    WatchLiveness w = liveness();
    w.listed();
    tally.watched(DEPLOY);
    tally.watch("apps/v1/Deployment", w, T0.plusSeconds(1));
    ConnectionHealth h = tally.result();
    assertThat(h.problem()).isEqualTo(ConnectionHealth.Problem.NONE);
    assertThat(h.message()).isNull();
    assertThat(h.watchedTypes()).containsExactly(DEPLOY);
    assertThat(h.lastContact()).isEqualTo(T0);
  }

  @Test
  void aRejectedCredentialOutranksAnUnansweredRequest() {
    HealthTally tally = new HealthTally();
    WatchLiveness refused = liveness();
    refused.afterConnectionFailure(null, new ConnectException("Connection refused"));
    WatchLiveness rejected = liveness();
    rejected.listFailed(new KubernetesClientException("Unauthorized", 401, null));
    tally.watch("apps/v1/Deployment", refused, T0.plusSeconds(60));
    tally.watch("v1/ConfigMap", rejected, T0.plusSeconds(60));
    ConnectionHealth h = tally.result();
    assertThat(h.problem()).isEqualTo(ConnectionHealth.Problem.UNAUTHORIZED);
    assertThat(h.message()).contains("HTTP 401").contains("v1/ConfigMap");
  }

  @Test
  void aConnectionSilentPastTheClientTimeoutIsUnreachableWithItsCause() {
    HealthTally tally = new HealthTally();
    WatchLiveness w = liveness();
    w.afterConnectionFailure(null, new ConnectException("Connection refused"));
    tally.watch("apps/v1/Deployment", w, T0.plusSeconds(8));
    ConnectionHealth h = tally.result();
    assertThat(h.problem()).isEqualTo(ConnectionHealth.Problem.UNREACHABLE);
    assertThat(h.message()).isEqualTo(
        "apps/v1/Deployment: error: ConnectException: Connection refused");
  }

  @Test
  void everyTypeForbiddenAndNoneWatchedIsForbiddenButOneServedTypeIsNot() {
    HealthTally all = new HealthTally();
    all.forbidden(DEPLOY);
    all.forbidden(CM);
    assertThat(all.result().problem()).isEqualTo(ConnectionHealth.Problem.FORBIDDEN);

    HealthTally some = new HealthTally();
    some.forbidden(DEPLOY);
    some.watched(CM);
    assertThat(some.result().problem()).isEqualTo(ConnectionHealth.Problem.NONE);
  }

  @Test
  void aFailedPlanWithoutAnAnswerIsUnreachableAndOneThatWorkedCountsAsContact() {
    HealthTally failed = new HealthTally();
    failed.planning(new HealthTally.PlanFailure(0, "ConnectException: Connection refused"), 0);
    assertThat(failed.result().problem()).isEqualTo(ConnectionHealth.Problem.UNREACHABLE);

    HealthTally worked = new HealthTally();
    worked.planning(null, T0.toEpochMilli());
    assertThat(worked.result().lastContact()).isEqualTo(T0);
    assertThat(worked.result().problem()).isEqualTo(ConnectionHealth.Problem.NONE);
  }
}
