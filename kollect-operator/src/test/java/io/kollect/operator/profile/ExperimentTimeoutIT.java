package io.kollect.operator.profile;

import static io.kollect.operator.profile.LifecycleFixture.BASELINE;
import static io.kollect.operator.profile.LifecycleFixture.CANDIDATE;
import static io.kollect.operator.profile.LifecycleFixture.revision;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kollect.core.lifecycle.Experiment;
import io.kollect.core.lifecycle.ExperimentMode;
import io.kollect.core.lifecycle.ProfileExperiments.StartRequest;
import io.kollect.operator.ReconcileSettings;
import io.kollect.operator.TestOperator;
import io.kollect.operator.cluster.TestCluster;
import io.kollect.operator.crd.KollectProfileStatus;
import io.kollect.operator.targets.CrTranslation;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The deadline is in status, not in an operator's memory: an experiment whose deadline passes
 * while no operator runs times out on the next operator's first reconcile, which restores the
 * baseline and sends only what differs; the terminal phase is cleared its retention after it
 * ended.
 */
class ExperimentTimeoutIT {

  /**
   * The terminal phase's retention here (a minute when shipped): long enough that the phase is
   * seen before it is cleared, even on a loaded machine, while the test waits it out in seconds.
   */
  private static final Duration RETENTION = Duration.ofSeconds(15);

  @Test
  void anExperimentWhoseDeadlinePassedDuringARestartTimesOutRestoresTheBaselineAndIsClearedAfterItsRetention()
      throws Exception {
    try (TestCluster cluster = TestCluster.start();
        LifecycleFixture fx = new LifecycleFixture(cluster)) {
      fx.setUp("lab", "p");
      Experiment started;
      try (TestOperator first = TestOperator.on(cluster).trusting("lab").start()) {
        fx.awaitBaseline("lab", "p");
        started = fx.control().start("p", StartRequest.of("t1", CANDIDATE)
            .withMode(ExperimentMode.LIVE).withTimeout(Duration.ofSeconds(6)));
        await().atMost(Duration.ofSeconds(30)).until(() -> fx.records("lab").size() == 4
            && revision("p", CANDIDATE).equals(fx.status("p").currentRevision()));
      }
      KollectProfileStatus whileDown = fx.status("p");
      assertThat(whileDown.experiment().phase()).isEqualTo("running");
      assertThat(whileDown.experiment().deadline())
          .isEqualTo(CrTranslation.rfc3339(started.deadline()));
      // Wait out the deadline with no operator running.
      await().atMost(Duration.ofSeconds(30)).until(() ->
          Instant.now().isAfter(started.deadline().plusSeconds(1)));
      assertThat(fx.status("p").experiment().phase()).isEqualTo("running");

      try (TestOperator second = TestOperator.on(cluster).trusting("lab")
          .configure(c -> c.toBuilder().timings(ReconcileSettings.Timings.shipped()
              .withExperimentRetention(RETENTION)).build()).start()) {
        await().atMost(Duration.ofSeconds(30)).until(() ->
            "timeout".equals(fx.status("p").experiment().phase())
                && revision("p", BASELINE).equals(fx.status("p").currentRevision()));
        Instant finished = Instant.parse(fx.status("p").experiment().finishedAt());
        assertThat(fx.specRevision("p")).isEqualTo(revision("p", BASELINE));
        assertThat(fx.status("p").deliveredRevision()).isEqualTo(revision("p", BASELINE));
        // Checkpoints are in ConfigMaps: the new operator re-sends nothing unchanged, only cm-1.
        await().atMost(Duration.ofSeconds(30)).until(() -> fx.records("lab").stream()
            .skip(4).anyMatch(r -> r.path("name").asText().equals("cm-1")
                && !r.path("labels").has("tier")));
        assertThat(fx.records("lab").stream().skip(4)
            .filter(r -> !r.path("name").asText().equals("cm-1"))).isEmpty();

        // The terminal phase stays visible for its retention after it ended, then is cleared.
        await().atMost(RETENTION.plusSeconds(60)).until(() ->
            fx.status("p").experiment() == null);
        assertThat(Instant.now()).isAfterOrEqualTo(finished.plus(RETENTION));
        assertThat(fx.status("p").currentRevision()).isEqualTo(revision("p", BASELINE));
      }
    }
  }
}
