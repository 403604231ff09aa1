package io.kollect.operator.profile;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kollect.core.lifecycle.Experiment;
import io.kollect.core.lifecycle.ExperimentMode;
import io.kollect.core.lifecycle.ExperimentPhase;
import io.kollect.core.lifecycle.ProfileState;
import io.kollect.extract.ProfileDiff;
import io.kollect.operator.crd.KollectProfileStatus;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProfileStatesTest {

  private static final Instant T = Instant.parse("2026-01-01T10:00:00Z");

  @Test
  void theStateSurvivesAStatusRoundTripThroughJson() {
    ProfileState state = new ProfileState("p-b", "p-a", "p-a", Experiment.builder().id("e1")
        .phase(ExperimentPhase.RUNNING).mode(ExperimentMode.LIVE).startedAt(T)
        .deadline(T.plusSeconds(1800)).baselineRevision("p-a").expectedSpecHash("0".repeat(32))
        .message("started").diff(new ProfileDiff(3, 1, 0, 2, Map.of("image", 2L), 0, 1, 10, 20,
            List.of())).build());
    KollectProfileStatus written = ProfileStates.apply(new KollectProfileStatus(4L, List.of(), 1),
        state);
    KubernetesSerialization json = new KubernetesSerialization();

    KollectProfileStatus read = json.unmarshal(json.asJson(written), KollectProfileStatus.class);

    assertThat(ProfileStates.from(read)).isEqualTo(state);
    assertThat(read.observedGeneration()).isEqualTo(4L);
    assertThat(read.resources()).isEqualTo(1);
  }

  @Test
  void noStatusIsTheInitialState() {
    assertThat(ProfileStates.from(null)).isEqualTo(ProfileState.initial());
  }

  @Test
  void onlyLifecycleKeysAndTheDeclarationCountAsALifecycleChange() {
    GenericKubernetesResource a = profile(Map.of("observedGeneration", 1), null);
    GenericKubernetesResource conditionsOnly = profile(Map.of("observedGeneration", 2), null);
    GenericKubernetesResource experiment = profile(Map.of("observedGeneration", 1,
        "experiment", Map.of("id", "e1")), null);
    GenericKubernetesResource declared = profile(Map.of("observedGeneration", 1), "id: e1");

    assertThat(ProfileStates.lifecycleChanged(a, conditionsOnly)).isFalse();
    assertThat(ProfileStates.lifecycleChanged(a, experiment)).isTrue();
    assertThat(ProfileStates.lifecycleChanged(a, declared)).isTrue();
  }

  private static GenericKubernetesResource profile(Map<String, Object> status, String declared) {
    GenericKubernetesResource o = new GenericKubernetesResource();
    ObjectMetaBuilder meta = new ObjectMetaBuilder().withName("p");
    if (declared != null) {
      meta.addToAnnotations(DeclaredExperiment.ANNOTATION, declared);
    }
    o.setMetadata(meta.build());
    o.setAdditionalProperty("status", status);
    return o;
  }
}
