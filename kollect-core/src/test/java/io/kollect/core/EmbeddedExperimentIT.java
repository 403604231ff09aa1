package io.kollect.core;

import static io.kollect.core.EngineIT.WAIT;
import static io.kollect.core.EngineIT.awaitStatus;
import static io.kollect.core.EngineIT.deploymentProfile;
import static io.kollect.core.EngineIT.fastSink;
import static io.kollect.core.EngineIT.target;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kollect.core.lifecycle.ExperimentPhase;
import io.kollect.core.lifecycle.InMemoryProfileHistory;
import io.kollect.core.lifecycle.ProfileExperiments;
import io.kollect.core.lifecycle.ProfileExperiments.StartRequest;
import io.kollect.core.lifecycle.ProfileHistory;
import io.kollect.core.lifecycle.ProfileRevision;
import io.kollect.core.lifecycle.ProfileState;
import io.kollect.extract.FieldRule;
import io.kollect.extract.ProfileDiff;
import io.kollect.extract.ProfileSpec;
import io.kollect.extract.ResourceRule;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An embedder's experiments: {@link ProfileExperiments} over the in-memory store drives a real
 * engine on a real API server (no operator, no CRDs).
 */
class EmbeddedExperimentIT {

  private static TestCluster cluster;
  private KollectEngine engine;
  private final InMemoryProfileHistory history = ProfileHistory.inMemory();
  private ProfileExperiments experiments;

  @BeforeAll
  static void startCluster() {
    cluster = TestCluster.start();
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @AfterEach
  void closeEngine() {
    if (engine != null) {
      engine.close();
    }
  }

  private RecordingSink startEngine(String ns) {
    engine = KollectEngine.builder(cluster.client()).cluster("it").workers(2)
        .lastExportNotifyInterval(Duration.ZERO).shadowInterval(Duration.ofMillis(100)).build();
    experiments = ProfileExperiments.builder(history).engine(engine)
        .diffInterval(Duration.ofMillis(200)).build();
    RecordingSink sink = new RecordingSink("rec");
    history.putSpec("deployments", deploymentProfile());
    experiments.reconcile("deployments");
    engine.putSink(sink, fastSink());
    TargetSpec spec = target("t", ns, "deployments", "rec");
    engine.putTarget(spec);
    engine.start();
    awaitStatus(engine, spec.id(), TargetStatus::ready);
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    return sink;
  }

  private static ProfileSpec replicasOnly() {
    return new ProfileSpec(List.of(new ResourceRule("apps", "v1", "Deployment",
        List.of(FieldRule.of("replicas", ".spec.replicas")), List.of(), List.of(), List.of(),
        false, false)));
  }

  @Test
  void aShadowExperimentIsComparedNotDeliveredAndItsPromotionSendsOnlyTheDifferences() {
    cluster.namespace("emb-a");
    cluster.deployment("emb-a", "web", "nginx:1.25", 1);
    cluster.deployment("emb-a", "api", "nginx:1.25", 2);
    RecordingSink sink = startEngine("emb-a");
    assertThat(sink.size()).isEqualTo(2);

    experiments.start("deployments", StartRequest.of("e1", replicasOnly()));

    ProfileDiff diff = await().atMost(WAIT).until(() -> experiments.diff("deployments")
        .orElse(null), d -> d != null && d.objects() == 2);
    assertThat(diff.changed()).isEqualTo(2);
    assertThat(diff.fieldChanges()).containsOnlyKeys("image");
    // The throttled reconcile stores the summary in the state, without samples.
    await().atMost(WAIT).until(() -> {
      experiments.reconcile("deployments");
      ProfileState s = experiments.status("deployments").orElseThrow();
      return s.experiment().diff() != null && s.experiment().diff().changed() == 2;
    });
    assertThat(experiments.status("deployments").orElseThrow().experiment().diff().samples())
        .isEmpty();
    assertThat(experiments.status("deployments").orElseThrow().deliveredRevision())
        .isEqualTo(ProfileRevision.of("deployments", deploymentProfile()).name());
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(sink.size()).isEqualTo(2);

    experiments.promote("deployments", "e1");

    await().atMost(WAIT).until(() -> sink.size() == 4);
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(sink.records().subList(2, 4))
        .allSatisfy(r -> assertThat(r.fields()).doesNotContainKey("image"));
    assertThat(engine.shadowDiff("deployments")).isEmpty();
  }

  @Test
  void stoppingRestoresTheBaselineInTheStoreAndTheEngineSendsNothing() {
    cluster.namespace("emb-b");
    cluster.deployment("emb-b", "one", "nginx:1.25", 1);
    RecordingSink sink = startEngine("emb-b");

    experiments.start("deployments", StartRequest.of("e2", replicasOnly()));
    await().atMost(WAIT).until(() -> experiments.diff("deployments").isPresent());
    experiments.stop("deployments", "e2");

    assertThat(history.read("deployments").orElseThrow().spec()).isEqualTo(deploymentProfile());
    assertThat(experiments.status("deployments").orElseThrow().experiment().phase())
        .isEqualTo(ExperimentPhase.ROLLBACK);
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(sink.size()).isEqualTo(1);
    assertThat(engine.shadowDiff("deployments")).isEmpty();
  }

  @Test
  void aCandidateThatDoesNotCompileIsNamedInTheExperimentsMessage() {
    cluster.namespace("emb-c");
    cluster.deployment("emb-c", "one", "nginx:1.25", 1);
    startEngine("emb-c");
    ProfileSpec broken = new ProfileSpec(List.of(new ResourceRule("apps", "v1", "Deployment",
        List.of(FieldRule.of("replicas", "{.spec")), List.of(), List.of(), List.of(), false,
        false)));

    experiments.start("deployments", StartRequest.of("e3", broken));

    await().atMost(WAIT).until(() -> {
      experiments.reconcile("deployments");
      return experiments.status("deployments").orElseThrow().experiment().message()
          .startsWith("the candidate cannot be evaluated");
    });
  }
}
