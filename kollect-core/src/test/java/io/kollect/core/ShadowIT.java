package io.kollect.core;

import static io.kollect.core.EngineIT.WAIT;
import static io.kollect.core.EngineIT.awaitStatus;
import static io.kollect.core.EngineIT.deploymentProfile;
import static io.kollect.core.EngineIT.target;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.kollect.extract.FieldRule;
import io.kollect.extract.Op;
import io.kollect.extract.ProfileDiff;
import io.kollect.extract.ProfileSpec;
import io.kollect.extract.Record;
import io.kollect.extract.ResourceRule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Shadow evaluation on a real API server: a candidate profile is evaluated over the same cached
 * objects as its targets, delivers nothing, and promoting it sends only the real differences.
 */
class ShadowIT {

  @RegisterExtension
  static final PerClassApiServer api = new PerClassApiServer();

  private KollectEngine engine() {
    KollectEngine engine = KollectEngine.builder(api.cluster().client()).cluster("it").workers(2)
        .lastExportNotifyInterval(Duration.ZERO).shadowInterval(Duration.ofMillis(100)).build();
    api.closedAfterTest(engine);
    return engine;
  }

  private static ProfileSpec withConfigMaps(ProfileSpec spec) {
    List<ResourceRule> rules = new ArrayList<>(spec.resources());
    rules.add(new ResourceRule("", "v1", "ConfigMap", List.of(FieldRule.of("data", ".data")),
        List.of(), List.of(), List.of(), false, false));
    return new ProfileSpec(rules);
  }

  private void pause(String ns, String name) {
    api.cluster().client().apps().deployments().inNamespace(ns).withName(name)
        .edit(d -> {
          d.getSpec().setPaused(true);
          return d;
        });
  }

  @Test
  void theShadowDiffComparesTheCandidateOverTheSameObjectsAndDeliversNothing() {
    api.cluster().namespace("shadow-a");
    api.cluster().deployment("shadow-a", "web", "nginx:1.25", 1);
    api.cluster().deployment("shadow-a", "api", "nginx:1.25", 2);
    api.cluster().client().configMaps().inNamespace("shadow-a").resource(new ConfigMapBuilder()
        .withNewMetadata().withName("settings").endMetadata().addToData("mode", "prod").build())
        .create();
    OneTarget arranged = OneTarget.ready(engine(), "shadow", "shadow-a", "deployments");
    KollectEngine engine = arranged.engine();
    RecordingSink sink = arranged.sink();
    TargetSpec spec = arranged.spec();
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    int delivered = sink.size();
    assertThat(delivered).isEqualTo(2);

    // The candidate drops the image and reads ConfigMaps too.
    ProfileSpec candidate = withConfigMaps(new ProfileSpec(List.of(new ResourceRule("apps", "v1",
        "Deployment", List.of(FieldRule.of("replicas", ".spec.replicas")), List.of(), List.of(),
        List.of(), false, false))));
    engine.putShadowProfile("deployments", candidate);

    ProfileDiff diff = await().atMost(WAIT).until(
        () -> engine.shadowDiff("deployments").orElse(null), d -> d != null && d.objects() == 3);
    assertThat(diff.changed()).isEqualTo(2);
    assertThat(diff.added()).isEqualTo(1);
    assertThat(diff.removed()).isZero();
    assertThat(diff.fieldChanges()).containsOnly(Map.entry("image", 2L)); // over changed records only
    assertThat(diff.samples()).extracting(ProfileDiff.ChangedRecord::key).containsExactly(
        "/ConfigMap/shadow-a/settings", "apps/Deployment/shadow-a/api",
        "apps/Deployment/shadow-a/web");
    assertThat(diff.samples().get(1).before()).containsOnlyKeys("image");
    assertThat(diff.samples().get(1).after()).isEmpty();
    assertThat(diff.bytesCandidate()).isPositive();
    assertThat(diff.bytesBaseline()).isPositive();

    // Changes keep flowing for the baseline only; the diff follows them.
    api.cluster().deployment("shadow-a", "batch", "busybox:1", 1);
    await().atMost(WAIT).until(() -> engine.shadowDiff("deployments").orElseThrow().objects()
        == 4);
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(sink.records()).hasSize(delivered + 1);
    assertThat(sink.records()).allSatisfy(r -> {
      assertThat(r.resource().kind()).isEqualTo("Deployment");
      assertThat(r.fields()).containsKey("image");
    });
  }

  @Test
  void promotingTheCandidateDeliversOnlyTheRecordsThatDiffer() {
    api.cluster().namespace("shadow-b");
    api.cluster().deployment("shadow-b", "one", "nginx:1.25", 1);
    api.cluster().deployment("shadow-b", "two", "nginx:1.25", 1);
    api.cluster().deployment("shadow-b", "three", "nginx:1.25", 1);
    pause("shadow-b", "two");
    OneTarget arranged = OneTarget.ready(engine(), "promote", "shadow-b", "deployments");
    KollectEngine engine = arranged.engine();
    RecordingSink sink = arranged.sink();
    TargetSpec spec = arranged.spec();
    assertThat(engine.awaitIdle(WAIT)).isTrue();
    assertThat(sink.size()).isEqualTo(3);

    // Only a paused Deployment has .spec.paused, so only it would change.
    ProfileSpec candidate = deploymentProfile(FieldRule.of("paused", ".spec.paused"));
    engine.putShadowProfile("deployments", candidate);
    ProfileDiff diff = await().atMost(WAIT).until(
        () -> engine.shadowDiff("deployments").orElse(null), d -> d != null && d.objects() == 3);
    assertThat(diff.changed()).isEqualTo(1);
    assertThat(diff.fieldChanges()).containsOnly(Map.entry("paused", 1L));
    assertThat(sink.size()).isEqualTo(3);

    engine.putProfile("deployments", candidate);
    engine.removeShadowProfile("deployments");
    await().atMost(WAIT).until(() -> sink.size() > 3);
    assertThat(engine.awaitIdle(WAIT)).isTrue();

    List<Record> promoted = sink.records().subList(3, sink.size());
    assertThat(promoted).singleElement().satisfies(r -> {
      assertThat(r.op()).isEqualTo(Op.UPSERT);
      assertThat(r.name()).isEqualTo("two");
      assertThat(r.fields().get("paused").asBoolean()).isTrue();
    });
    assertThat(engine.shadowDiff("deployments")).isEmpty();
  }

  @Test
  void aCappedTargetIsComparedOnWhatItDelivers() {
    api.cluster().namespace("shadow-d");
    for (String name : List.of("a", "b", "c")) {
      api.cluster().deployment("shadow-d", name, "nginx:1.25", 1);
    }
    KollectEngine engine = engine();
    engine.putProfile("deployments", deploymentProfile());
    TargetSpec spec = target("capped", "shadow-d", "deployments").toBuilder().maxObjects(1)
        .build();
    engine.putTarget(spec);
    engine.start();
    awaitStatus(engine, spec.id(), TargetStatus::ready);

    engine.putShadowProfile("deployments", new ProfileSpec(List.of(new ResourceRule("apps",
        "v1", "Deployment", List.of(FieldRule.of("replicas", ".spec.replicas")), List.of(),
        List.of(), List.of(), false, false))));

    ProfileDiff diff = await().atMost(WAIT).until(
        () -> engine.shadowDiff("deployments").orElse(null), d -> d != null && d.objects() == 3);
    assertThat(diff.changed()).isEqualTo(1);
    assertThat(diff.added() + diff.removed()).isZero();
    assertThat(diff.samples()).extracting(ProfileDiff.ChangedRecord::key)
        .containsExactly("apps/Deployment/shadow-d/a");
  }

  @Test
  void anInvalidCandidateIsReportedAndEvaluatesNothing() {
    KollectEngine engine = engine();
    engine.putProfile("deployments", deploymentProfile());
    engine.start();

    engine.putShadowProfile("deployments", deploymentProfile(
        FieldRule.of("broken", ".spec[")));

    assertThat(engine.shadowError("deployments")).hasValueSatisfying(
        m -> assertThat(m).contains("broken"));
    assertThat(engine.shadowDiff("deployments")).isEmpty();
    assertThat(engine.shadowLeaseCount("deployments")).isZero();
  }

  @Test
  void removingTheCandidateReleasesTheLeasesItHeld() {
    api.cluster().namespace("shadow-c");
    api.cluster().deployment("shadow-c", "web", "nginx:1.25", 1);
    KollectEngine engine = engine();
    engine.putProfile("deployments", deploymentProfile());
    TargetSpec spec = target("release", "shadow-c", "deployments");
    engine.putTarget(spec);
    engine.start();
    awaitStatus(engine, spec.id(), TargetStatus::ready);

    engine.putShadowProfile("deployments", withConfigMaps(deploymentProfile()));
    await().atMost(WAIT).until(() -> engine.shadowDiff("deployments").isPresent());
    assertThat(engine.shadowLeaseCount("deployments")).isEqualTo(2);

    engine.removeShadowProfile("deployments");
    assertThat(engine.shadowLeaseCount("deployments")).isZero();
    assertThat(engine.shadowDiff("deployments")).isEmpty();
  }
}
