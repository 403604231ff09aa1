package io.kollect.operator.profile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.kollect.core.lifecycle.ExperimentMode;
import io.kollect.core.lifecycle.ProfileExperiments.StartRequest;
import io.kollect.operator.crd.KollectProfile;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class DeclaredExperimentTest {

  private static KollectProfile annotated(String text) {
    KollectProfile p = new KollectProfile();
    p.setMetadata(new ObjectMetaBuilder().withName("p")
        .addToAnnotations(DeclaredExperiment.ANNOTATION, text).build());
    return p;
  }

  @Test
  void theAnnotationDeclaresIdModeTimeoutAndCandidate() {
    StartRequest r = DeclaredExperiment.of(annotated("""
        id: add-cpu
        mode: live
        timeout: 45m
        candidate:
          resources:
            - {version: v1, kind: ConfigMap, fields: [{name: a, path: "{.data.a}"}]}
        """)).orElseThrow();

    assertThat(r.id()).isEqualTo("add-cpu");
    assertThat(r.mode()).isEqualTo(ExperimentMode.LIVE);
    assertThat(r.timeout()).isEqualTo(Duration.ofMinutes(45));
    assertThat(r.candidate().resources()).hasSize(1);
  }

  @Test
  void withoutTheAnnotationNothingIsDeclaredAndDefaultsAreShadowAnd30Minutes() {
    KollectProfile none = new KollectProfile();
    none.setMetadata(new ObjectMetaBuilder().withName("p").build());
    assertThat(DeclaredExperiment.of(none)).isEmpty();

    StartRequest r = DeclaredExperiment.of(annotated(
        "{id: x, candidate: {resources: [{version: v1, kind: Service}]}}")).orElseThrow();
    assertThat(r.mode()).isEqualTo(ExperimentMode.SHADOW);
    assertThat(r.timeout()).isEqualTo(Duration.ofMinutes(30));
  }

  @Test
  void aBadDeclarationIsRefusedNamingTheAnnotationAndKey() {
    assertThatThrownBy(() -> DeclaredExperiment.of(annotated("candidate: {resources: []}")))
        .hasMessage("annotation kollect.io/experiment: id is required");
    assertThatThrownBy(() -> DeclaredExperiment.of(annotated("{id: x}")))
        .hasMessageContaining("candidate is required");
    assertThatThrownBy(() -> DeclaredExperiment.of(annotated(
        "{id: x, mode: canary, candidate: {resources: []}}")))
        .hasMessageContaining("annotation kollect.io/experiment: mode");
    assertThatThrownBy(() -> DeclaredExperiment.of(annotated(
        "{id: x, timeout: soon, candidate: {resources: []}}")))
        .hasMessageContaining("timeout \"soon\"");
    assertThatThrownBy(() -> DeclaredExperiment.of(annotated(
        "{id: x, when: now, candidate: {resources: []}}")))
        .hasMessageContaining("unknown key \"when\"");
    assertThatThrownBy(() -> DeclaredExperiment.of(annotated(
        "{id: x, candidate: {resources: [{version: v1, kind: Service, paht: 1}]}}")))
        .hasMessageContaining("paht");
    assertThatThrownBy(() -> DeclaredExperiment.of(annotated(
        "{id: x, candidate: {resources: [{version: v1, kind: Service, fields: [{name: a, path: "
            + "'{.spec'}]}]}}")))
        .hasMessageContaining("resources[0].fields[0]");
  }
}
