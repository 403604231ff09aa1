package io.kollect.operator.profile;

import static io.kollect.operator.profile.LifecycleFixture.BASELINE;
import static io.kollect.operator.profile.LifecycleFixture.CANDIDATE;
import static io.kollect.operator.profile.LifecycleFixture.OPERATOR_NS;
import static io.kollect.operator.profile.LifecycleFixture.OTHER;
import static io.kollect.operator.profile.LifecycleFixture.OTHER_YAML;
import static io.kollect.operator.profile.LifecycleFixture.revision;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kollect.core.lifecycle.ExperimentMode;
import io.kollect.core.lifecycle.ExperimentRejectedException;
import io.kollect.core.lifecycle.ProfileExperiments.StartRequest;
import io.kollect.core.lifecycle.ProfileExperiments;
import io.kollect.core.lifecycle.ProfileRevision;
import io.kollect.extract.ProfileSpec;
import io.kollect.operator.TestOperator;
import io.kollect.operator.cluster.TestCluster;
import io.kollect.operator.crd.KollectProfile;
import io.kollect.operator.crd.KollectProfileStatus;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Profile revisions and experiments on a real API server, with one operator; the experiments are
 * driven as {@code kollect experiment} drives them (ControllerRevisions and status, no engine).
 * Each test has its own namespace, profile and target. Live mode here; shadow mode needs the
 * engine's shadow API ({@code ShadowExperimentIT}).
 */
class ProfileLifecycleIT {

  private static TestCluster cluster;
  private static LifecycleFixture fx;
  private static TestOperator operator;

  @BeforeAll
  static void start() throws IOException {
    cluster = TestCluster.start();
    fx = new LifecycleFixture(cluster);
    operator = TestOperator.on(cluster).trusting("rev", "live", "promote", "reject", "abort",
        "race", "long", "gitops").start();
  }

  @AfterAll
  static void stop() {
    if (operator != null) {
      operator.close();
    }
    if (fx != null) {
      fx.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  /**
   * Replaces the object as {@code kubectl replace} or a GitOps tool does; the operator writing
   * status at the same instant gives a 409, which such a tool retries too.
   */
  private static void replace(String yaml) {
    await().atMost(Duration.ofSeconds(10)).ignoreException(KubernetesClientException.class)
        .until(() -> !cluster.apply(yaml).isEmpty());
  }

  private static void applySpec(String profile, String specYaml) {
    replace("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectProfile
        metadata: {name: %s}
        spec:
        %s""".formatted(profile, specYaml.indent(2)));
  }

  private static List<ControllerRevision> revisionObjects(String profile) {
    return fx.client.resources(ControllerRevision.class).inNamespace(OPERATOR_NS)
        .withLabel(ControllerRevisionHistory.PROFILE_LABEL, ProfileRevision.profileLabel(profile))
        .list().getItems();
  }

  private static String phase(String profile) {
    KollectProfileStatus s = fx.status(profile);
    return s.experiment() == null ? null : s.experiment().phase();
  }

  @Test
  void everySpecChangeIsAnOwnedControllerRevisionAndOnlyCurrentAndPreviousAreKept() {
    fx.setUp("rev", "rev");
    fx.awaitBaseline("rev", "rev");
    KollectProfile profile = fx.profile("rev");

    ControllerRevision base = fx.client.resources(ControllerRevision.class)
        .inNamespace(OPERATOR_NS).withName(revision("rev", BASELINE)).get();
    assertThat(base).isNotNull();
    assertThat(base.getMetadata().getLabels())
        .containsEntry(ControllerRevisionHistory.PROFILE_LABEL, "rev");
    OwnerReference owner = base.getMetadata().getOwnerReferences().get(0);
    assertThat(owner.getKind()).isEqualTo("KollectProfile");
    assertThat(owner.getName()).isEqualTo("rev");
    assertThat(owner.getUid()).isEqualTo(profile.getMetadata().getUid());
    assertThat(fx.history().revision("rev", base.getMetadata().getName()).orElseThrow().spec())
        .isEqualTo(BASELINE);

    applySpec("rev", LifecycleFixture.CANDIDATE_YAML);
    await().atMost(Duration.ofSeconds(30)).until(() ->
        revision("rev", CANDIDATE).equals(fx.status("rev").currentRevision()));
    applySpec("rev", OTHER_YAML);
    await().atMost(Duration.ofSeconds(30)).until(() ->
        revision("rev", OTHER).equals(fx.status("rev").currentRevision()));

    assertThat(fx.status("rev").previousRevision()).isEqualTo(revision("rev", CANDIDATE));
    assertThat(fx.status("rev").deliveredRevision()).isEqualTo(revision("rev", OTHER));
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
        assertThat(revisionObjects("rev")).extracting(r -> r.getMetadata().getName())
            .containsExactlyInAnyOrder(revision("rev", CANDIDATE), revision("rev", OTHER)));
  }

  @Test
  void aLongProfileNameGetsARevisionNameAndLabelOfAtMost63Characters() {
    String name = "long-" + "x".repeat(120) + ".example.com";
    fx.setUp("long", name);
    fx.awaitBaseline("long", name);

    String rev = fx.status(name).currentRevision();
    assertThat(rev).hasSizeLessThanOrEqualTo(63);
    ControllerRevision object = fx.client.resources(ControllerRevision.class)
        .inNamespace(OPERATOR_NS).withName(rev).get();
    assertThat(object.getMetadata().getLabels().get(ControllerRevisionHistory.PROFILE_LABEL))
        .hasSizeLessThanOrEqualTo(63);
    assertThat(object.getMetadata().getAnnotations())
        .containsEntry(ControllerRevisionHistory.PROFILE_ANNOTATION, name);
  }

  @Test
  void liveModeDeliversTheCandidateAndStopRestoresTheBaselineSendingOnlyTheDifferences() {
    fx.setUp("live", "live");
    fx.awaitBaseline("live", "live");
    ProfileExperiments control = fx.control();

    control.start("live", StartRequest.of("try-1", CANDIDATE).withMode(ExperimentMode.LIVE));

    await().atMost(Duration.ofSeconds(30)).until(() -> fx.records("live").size() == 4);
    JsonNode changed = fx.records("live").get(3);
    assertThat(changed.path("name").asText()).isEqualTo("cm-1");
    assertThat(changed.path("labels").path("tier").asText()).isEqualTo("gold");
    KollectProfileStatus running = fx.status("live");
    assertThat(running.experiment().phase()).isEqualTo("running");
    assertThat(running.experiment().mode()).isEqualTo("live");
    assertThat(running.experiment().baselineRevision()).isEqualTo(revision("live", BASELINE));
    assertThat(running.experiment().expectedSpecHash())
        .isEqualTo(ProfileRevision.specHash(CANDIDATE));
    assertThat(running.currentRevision()).isEqualTo(revision("live", CANDIDATE));
    assertThat(running.deliveredRevision()).isEqualTo(revision("live", CANDIDATE));

    control.stop("live", "try-1");

    await().atMost(Duration.ofSeconds(30)).until(() -> fx.records("live").size() == 5
        && revision("live", BASELINE).equals(fx.status("live").currentRevision()));
    JsonNode restored = fx.records("live").get(4);
    assertThat(restored.path("name").asText()).isEqualTo("cm-1");
    assertThat(restored.path("labels").has("tier")).isFalse();
    assertThat(fx.specRevision("live")).isEqualTo(revision("live", BASELINE));
    assertThat(phase("live")).isEqualTo("rollback");
    await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5))
        .until(() -> fx.records("live").size() == 5);
  }

  @Test
  void promoteKeepsTheCandidateWithoutSendingAgain() {
    fx.setUp("promote", "promote");
    fx.awaitBaseline("promote", "promote");
    ProfileExperiments control = fx.control();
    control.start("promote", StartRequest.of("p1", CANDIDATE).withMode(ExperimentMode.LIVE));
    await().atMost(Duration.ofSeconds(30)).until(() -> fx.records("promote").size() == 4
        && revision("promote", CANDIDATE).equals(fx.status("promote").currentRevision()));

    control.promote("promote", "p1");

    await().atMost(Duration.ofSeconds(30)).until(() -> "promoted".equals(phase("promote")));
    assertThat(fx.specRevision("promote")).isEqualTo(revision("promote", CANDIDATE));
    assertThat(fx.status("promote").deliveredRevision()).isEqualTo(revision("promote", CANDIDATE));
    await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5))
        .until(() -> fx.records("promote").size() == 4);
  }

  @Test
  void aWrongIdOrAWrongPhaseIsRejectedWithAClearMessage() {
    fx.setUp("reject", "reject");
    fx.awaitBaseline("reject", "reject");
    ProfileExperiments control = fx.control();
    control.start("reject", StartRequest.of("e1", CANDIDATE).withMode(ExperimentMode.LIVE));
    await().atMost(Duration.ofSeconds(30)).until(() ->
        revision("reject", CANDIDATE).equals(fx.status("reject").currentRevision()));

    assertThatThrownBy(() -> control.promote("reject", "e2"))
        .isInstanceOf(ExperimentRejectedException.class)
        .hasMessageContaining("the profile's experiment is e1");
    assertThatThrownBy(() -> control.start("reject", StartRequest.of("e2", OTHER)))
        .isInstanceOf(ExperimentRejectedException.class)
        .hasMessageContaining("experiment e1 is running");
    control.stop("reject", "e1");
    assertThatThrownBy(() -> control.promote("reject", "e1"))
        .isInstanceOf(ExperimentRejectedException.class)
        .hasMessageContaining("it is rollback, not running");
    // The same stop again is a retry, not an error.
    assertThat(control.stop("reject", "e1").phase().wire()).isEqualTo("rollback");
  }

  @Test
  void anExternalApplyWhileRunningAbortsAndIsNotUndone() {
    fx.setUp("abort", "abort");
    fx.awaitBaseline("abort", "abort");
    fx.control().start("abort", StartRequest.of("a1", CANDIDATE).withMode(ExperimentMode.LIVE));
    await().atMost(Duration.ofSeconds(30)).until(() ->
        revision("abort", CANDIDATE).equals(fx.status("abort").currentRevision()));

    applySpec("abort", OTHER_YAML);

    await().atMost(Duration.ofSeconds(30)).until(() -> "aborted".equals(phase("abort")));
    assertThat(fx.status("abort").experiment().message()).contains(revision("abort", OTHER));
    assertThat(fx.status("abort").currentRevision()).isEqualTo(revision("abort", OTHER));
    await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5))
        .until(() -> fx.specRevision("abort").equals(revision("abort", OTHER)));
  }

  @Test
  void aReconcileBetweenTheStatusWriteAndTheSpecPatchWaitsForTheSpec() throws Exception {
    fx.setUp("race", "race");
    fx.awaitBaseline("race", "race");
    CountDownLatch release = new CountDownLatch(1);
    ControllerRevisionHistory cluster = fx.history();
    ProfileExperiments slowSpec = LifecycleFixture.control(
        new ProfileExperimentsTestHistory(cluster) {
          @Override
          public void writeSpec(String profile, ProfileSpec spec) {
            try {
              release.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            super.writeSpec(profile, spec);
          }
        });

    CompletableFuture<?> start = CompletableFuture.runAsync(() -> slowSpec.start("race",
        StartRequest.of("r1", CANDIDATE).withMode(ExperimentMode.LIVE)));

    await().atMost(Duration.ofSeconds(30)).until(() -> "running".equals(phase("race")));
    // The operator reconciles on the status change and must wait, not abort.
    await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() ->
        "running".equals(phase("race"))
            && revision("race", BASELINE).equals(fx.status("race").currentRevision()));
    assertThat(fx.records("race")).hasSize(3);

    release.countDown();
    start.get(30, TimeUnit.SECONDS);

    await().atMost(Duration.ofSeconds(30)).until(() ->
        revision("race", CANDIDATE).equals(fx.status("race").currentRevision())
            && fx.records("race").size() == 4);
    assertThat(phase("race")).isEqualTo("running");
  }

  private static void applyDeclared(String profile, String id, String specYaml) {
    replace("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectProfile
        metadata:
          name: %s
          annotations:
            kollect.io/experiment: |
              id: %s
              mode: live
              candidate:
        %s
        spec:
        %s""".formatted(profile, id, LifecycleFixture.CANDIDATE_YAML.indent(8),
        specYaml.indent(2)));
  }

  @Test
  void aDeclaredExperimentSurvivesReapplyAndEndsWithItsDeclaration() {
    fx.setUp("gitops", "gitops");
    fx.awaitBaseline("gitops", "gitops");

    applyDeclared("gitops", "g1", LifecycleFixture.BASELINE_YAML);

    await().atMost(Duration.ofSeconds(30)).until(() -> "running".equals(phase("gitops"))
        && revision("gitops", CANDIDATE).equals(fx.status("gitops").currentRevision())
        && fx.records("gitops").size() == 4);
    assertThat(fx.status("gitops").experiment().message())
        .isEqualTo(DeclaredExperiment.MESSAGE);
    // The spec in Git stays the baseline: nothing patched it.
    assertThat(fx.specRevision("gitops")).isEqualTo(revision("gitops", BASELINE));
    // A GitOps tool re-applies the same manifest: the experiment goes on.
    applyDeclared("gitops", "g1", LifecycleFixture.BASELINE_YAML);
    await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5))
        .until(() -> "running".equals(phase("gitops")));

    // The declaration goes, the spec stays the baseline: rolled back, cm-1 re-sent once.
    applySpec("gitops", LifecycleFixture.BASELINE_YAML);
    await().atMost(Duration.ofSeconds(30)).until(() -> "rollback".equals(phase("gitops"))
        && revision("gitops", BASELINE).equals(fx.status("gitops").deliveredRevision())
        && fx.records("gitops").size() == 5);

    // A new declaration, then the candidate committed as the spec: promoted, nothing re-sent.
    applyDeclared("gitops", "g2", LifecycleFixture.BASELINE_YAML);
    await().atMost(Duration.ofSeconds(30)).until(() -> "running".equals(phase("gitops"))
        && "g2".equals(fx.status("gitops").experiment().id())
        && fx.records("gitops").size() == 6);
    applySpec("gitops", LifecycleFixture.CANDIDATE_YAML);
    await().atMost(Duration.ofSeconds(30)).until(() -> "promoted".equals(phase("gitops")));
    assertThat(fx.status("gitops").deliveredRevision()).isEqualTo(revision("gitops", CANDIDATE));
    await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5))
        .until(() -> fx.records("gitops").size() == 6);
  }
}
