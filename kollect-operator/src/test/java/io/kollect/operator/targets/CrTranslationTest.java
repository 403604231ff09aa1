package io.kollect.operator.targets;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.kollect.core.Condition;
import io.kollect.core.SkippedScope;
import io.kollect.core.TargetId;
import io.kollect.core.TargetSpec;
import io.kollect.core.TargetStatus;
import io.kollect.export.DeliveryStatus;
import io.kollect.export.Rejection;
import io.kollect.extract.FieldRule;
import io.kollect.extract.ProfileLoader;
import io.kollect.extract.ProfileSpec;
import io.kollect.extract.ResourceRule;
import io.kollect.operator.crd.KollectProfile;
import io.kollect.operator.crd.KollectProfileSpec;
import io.kollect.operator.crd.KollectTarget;
import io.kollect.operator.crd.KollectTargetStatus;
import io.kollect.operator.crd.ProfileField;
import io.kollect.operator.crd.ProfileResource;
import io.kollect.operator.inventory.InventoryHealth;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class CrTranslationTest {

  private static final String PROFILE = """
      apiVersion: kollect.io/v1alpha1
      kind: KollectProfile
      metadata: {name: deployments}
      spec:
        resources:
          - group: apps
            version: v1
            kind: Deployment
            labels: ["app.kubernetes.io/*"]
            annotations: ["example.org/owner"]
            scrubKeys: ["*password*"]
            fields:
              - {name: replicas, path: "{.spec.replicas}", default: 1}
              - {name: images, path: "{.spec.template.spec.containers[*].image}", list: true}
              - {name: containers, path: "{.spec.template.spec.containers[*].name}", reduce: count}
              - name: resources
                path: "{.spec.template.spec.containers[0].resources}"
                default: {limits: {cpu: "1"}, tags: [a, 2, true, null]}
          - version: v1
            kind: Secret
            includeSecretData: true
            helmRelease: true
            fields:
              - {name: chart, path: "{.release.chart.metadata.name}"}
      """;

  @Test
  void aProfileResourceTranslatesToTheSameSpecTheExtractLoaderReads() {
    KollectProfile profile = Serialization.unmarshal(PROFILE, KollectProfile.class);
    ProfileSpec translated = CrTranslation.profile(profile);
    ProfileSpec loaded = ProfileLoader.parse(PROFILE, "test");
    assertThat(translated).isEqualTo(loaded);
    FieldRule resources = translated.resources().get(0).fields().get(3);
    assertThat(resources.defaultValue().get("tags").get(1).asInt()).isEqualTo(2);
    assertThat(resources.defaultValue().get("tags").get(3).isNull()).isTrue();
  }

  private static Set<String> jsonProperties(ObjectMapper mapper, Class<?> type) {
    JavaType t = mapper.constructType(type);
    return mapper.getDeserializationConfig().introspect(t).findProperties().stream()
        .map(BeanPropertyDefinition::getName).collect(Collectors.toSet());
  }

  @Test
  void theCrdSchemaHasEveryPropertyOfTheExtractModel() {
    ObjectMapper mapper = new ObjectMapper();
    assertThat(jsonProperties(mapper, KollectProfileSpec.class)).isEqualTo(jsonProperties(mapper, ProfileSpec.class));
    assertThat(jsonProperties(mapper, ProfileResource.class)).isEqualTo(jsonProperties(mapper, ResourceRule.class));
    assertThat(jsonProperties(mapper, ProfileField.class)).isEqualTo(jsonProperties(mapper, FieldRule.class));
  }

  @Test
  void aTargetResolvesSinkRefsInItsNamespaceAndAddsHostSinks() {
    KollectTarget target = Serialization.unmarshal("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata: {name: t, namespace: team, generation: 4}
        spec:
          profileRef: deployments
          scope:
            namespaces: [team, other]
            labelSelector: {matchLabels: {tier: web}}
            names: [a, b]
          sinkRefs: [audit, siem]
        """, KollectTarget.class);
    TargetSpec spec = CrTranslation.target(target, List.of("stdout"));
    assertThat(spec.id()).isEqualTo(new TargetId("team", "t"));
    assertThat(spec.generation()).isEqualTo(4);
    assertThat(spec.profileRef()).isEqualTo("deployments");
    assertThat(spec.sinkRefs()).containsExactly("team/audit", "team/siem", "stdout");
    assertThat(spec.writeInventory()).isFalse();
    assertThat(spec.scope().namespaces()).containsExactly("team", "other");
    assertThat(spec.scope().names()).containsExactly("a", "b");
    assertThat(spec.scope().labelSelector().getMatchLabels()).containsEntry("tier", "web");
    assertThat(spec.scope().namespaceSelector()).isNull();
  }

  @Test
  void aTargetsSuspendAndObjectCapReachTheCoreSpec() {
    KollectTarget target = Serialization.unmarshal("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata: {name: t, namespace: team, generation: 2}
        spec:
          profileRef: deployments
          suspend: true
          limits: {maxObjects: 250}
        """, KollectTarget.class);
    TargetSpec spec = CrTranslation.target(target, List.of());
    assertThat(spec.suspend()).isTrue();
    assertThat(spec.maxObjects()).isEqualTo(250);

    KollectTarget plain = Serialization.unmarshal("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata: {name: t, namespace: team}
        spec: {profileRef: deployments}
        """, KollectTarget.class);
    assertThat(CrTranslation.target(plain, List.of()).suspend()).isFalse();
    assertThat(CrTranslation.target(plain, List.of()).maxObjects()).isNull();
  }

  @Test
  void statusCarriesConditionsCountsSkippedAndExportTime() {
    Instant since = Instant.parse("2024-05-01T10:00:00.123Z");
    TargetStatus status = new TargetStatus(new TargetId("team", "t"), 3,
        List.of(new Condition("Ready", "True", "Exporting", "ok", since),
            new Condition("Degraded", "True", "Forbidden", null, since)),
        Map.of("apps/v1/Deployment", 2, "v1/Service", 0),
        List.of(new SkippedScope("v1/Secret", "kube-system", "forbidden", "cannot list")),
        Instant.parse("2024-05-01T10:01:00Z"));
    KollectTargetStatus s = CrTranslation.status(status);
    assertThat(s.observedGeneration()).isEqualTo(3);
    assertThat(s.conditions()).hasSize(2);
    assertThat(s.conditions().get(0).getLastTransitionTime()).isEqualTo("2024-05-01T10:00:00Z");
    assertThat(s.conditions().get(0).getObservedGeneration()).isEqualTo(3);
    assertThat(s.conditions().get(1).getMessage()).as("never empty").isEqualTo("Forbidden");
    assertThat(s.objectCounts()).containsExactly(Map.entry("apps/v1/Deployment", 2), Map.entry("v1/Service", 0));
    assertThat(s.skipped()).singleElement().satisfies(k -> {
      assertThat(k.reason()).isEqualTo("forbidden");
      assertThat(k.namespace()).isEqualTo("kube-system");
    });
    assertThat(s.lastExportTime()).isEqualTo("2024-05-01T10:01:00Z");
  }

  private static TargetStatus readyStatus() {
    Instant since = Instant.parse("2024-05-01T10:00:00Z");
    return new TargetStatus(new TargetId("team", "t"), 4,
        List.of(new Condition("Ready", "True", "Reconciled", "2 objects", since),
            new Condition("Degraded", "False", "Reconciled", "all parts work", since)),
        Map.of("v1/ConfigMap", 2), List.of(), null);
  }

  @Test
  void writesThatKeepFailingMakeTheTargetNotReadyAndStalledNamingTheError() {
    Instant now = Instant.parse("2024-05-01T11:00:00Z");
    InventoryHealth failing = new InventoryHealth(2, 2, 3, now.minusSeconds(5),
        "inventory of team/t: cannot write KollectInventory objects: HTTP 500: boom", null, List.of());

    KollectTargetStatus s = CrTranslation.status(readyStatus(), failing, now, null);

    var byType = s.conditions().stream().collect(Collectors.toMap(c -> c.getType(), c -> c));
    assertThat(byType.get("Ready").getStatus()).isEqualTo("False");
    assertThat(byType.get("Ready").getReason()).isEqualTo("InventoryWriteFailing");
    assertThat(byType.get("Ready").getMessage()).contains("3 time(s)").contains("HTTP 500: boom");
    assertThat(byType.get("Stalled").getStatus()).isEqualTo("True");
    assertThat(byType.get("Stalled").getObservedGeneration()).isEqualTo(4);
    assertThat(byType).doesNotContainKey("Reconciling");
    assertThat(s.inventory().consecutiveFailures()).isEqualTo(3);
  }

  @Test
  void oneFailedWriteIsAHiccupThatLeavesTheTargetReady() {
    Instant now = Instant.parse("2024-05-01T11:00:00Z");
    InventoryHealth hiccup = new InventoryHealth(2, 2, 1, now.minusSeconds(1), "boom", null, List.of());
    KollectTargetStatus s = CrTranslation.status(readyStatus(), hiccup, now, null);
    assertThat(s.conditions()).filteredOn(c -> c.getType().equals("Ready"))
        .singleElement().satisfies(c -> assertThat(c.getStatus()).isEqualTo("True"));
    assertThat(s.conditions()).extracting(c -> c.getType()).doesNotContain("Stalled", "Reconciling");
  }

  @Test
  void aRejectedRecordIsAConditionNamingTheObjectAndItsSize() {
    Instant now = Instant.parse("2024-05-01T11:00:00Z");
    InventoryHealth rejected = new InventoryHealth(1, 0, 0, null, null, now,
        List.of(new InventoryHealth.RejectedRecord("k", "ConfigMap team/big", 1_234_567, "too big")));

    KollectTargetStatus s = CrTranslation.status(readyStatus(), rejected, now, null);

    assertThat(s.conditions()).filteredOn(c -> c.getType().equals("RecordsRejected"))
        .singleElement().satisfies(c -> {
          assertThat(c.getStatus()).isEqualTo("True");
          assertThat(c.getMessage()).contains("ConfigMap team/big (1234567 bytes)");
        });
    assertThat(s.inventory().rejected()).singleElement()
        .satisfies(r -> assertThat(r.object()).isEqualTo("ConfigMap team/big"));
    assertThat(s.objects()).isEqualTo(2);
  }

  @Test
  void aTargetWaitingForItsCachesIsReconcilingAndAMissingProfileIsStalled() {
    Instant since = Instant.parse("2024-05-01T10:00:00Z");
    TargetStatus syncing = new TargetStatus(new TargetId("team", "t"), 1,
        List.of(new Condition("Ready", "False", "NotSynced", "waiting", since)), Map.of(), List.of(), null);
    TargetStatus missing = new TargetStatus(new TargetId("team", "t"), 1,
        List.of(new Condition("Ready", "False", "ProfileNotFound", "profile p not found", since)),
        Map.of(), List.of(), null);
    assertThat(CrTranslation.status(syncing).conditions()).extracting(c -> c.getType())
        .contains("Reconciling").doesNotContain("Stalled");
    assertThat(CrTranslation.status(missing).conditions()).extracting(c -> c.getType())
        .contains("Stalled").doesNotContain("Reconciling");
  }

  @Test
  void anUnchangedConditionKeepsItsTransitionTime() {
    Instant now = Instant.parse("2024-05-01T11:00:00Z");
    InventoryHealth failing = new InventoryHealth(2, 2, 3, now.minusSeconds(5), "boom", null, List.of());
    KollectTargetStatus first = CrTranslation.status(readyStatus(), failing, now, null);
    KollectTargetStatus later = CrTranslation.status(readyStatus(), failing, now.plusSeconds(30), first);
    assertThat(later.conditions()).isEqualTo(first.conditions());
  }

  @Test
  void theEnginesJudgementOfAFailingSinkIsCarriedOverAsSinkDeliveryFailingAndEverySinkIsListed() {
    Instant now = Instant.parse("2024-05-01T11:00:00Z");
    DeliveryStatus failing = new DeliveryStatus(now.minusSeconds(120), 7, 4, now.minusSeconds(90),
        "POST https://hook.example/ingest: HTTP 503", List.of());
    DeliveryStatus fine = new DeliveryStatus(now.minusSeconds(1), 0, 0, null, null,
        List.of(new Rejection("v1/ConfigMap/team/big", "larger than the sink's limit")));
    String judged = "sink team/hook keeps failing (4 attempts since 2024-05-01T10:58:30Z): "
        + "POST https://hook.example/ingest: HTTP 503";
    TargetStatus engine = new TargetStatus(new TargetId("team", "t"), 1, List.of(
        new Condition("Ready", "False", "DeliveryFailing", judged, now),
        new Condition("Degraded", "True", "DeliveryFailing", judged, now)), Map.of(), List.of(), null);

    KollectTargetStatus s = CrTranslation.status(engine, null,
        new java.util.TreeMap<>(Map.of("team/hook", failing, "team/file", fine)), now, null);

    var byType = s.conditions().stream().collect(Collectors.toMap(c -> c.getType(), c -> c));
    assertThat(byType.get("Ready").getStatus()).isEqualTo("False");
    assertThat(byType.get("Ready").getReason()).isEqualTo("SinkDeliveryFailing");
    assertThat(byType.get("Ready").getMessage()).isEqualTo(judged);
    assertThat(byType.get("Stalled").getReason()).isEqualTo("SinkDeliveryFailing");
    assertThat(byType.get("RecordsRejected").getMessage())
        .contains("v1/ConfigMap/team/big (sink team/file): larger than the sink's limit");
    assertThat(s.sinks()).extracting(KollectTargetStatus.SinkStatus::name).containsExactly("file", "hook");
    assertThat(s.sinks().get(1).lastAcknowledgedTime()).isEqualTo("2024-05-01T10:58:00Z");
    assertThat(s.sinks().get(1).pending()).isEqualTo(7);
  }

  @Test
  void deliveriesTheEngineDoesNotJudgeFailingLeaveTheTargetReady() {
    Instant now = Instant.parse("2024-05-01T11:00:00Z");
    // Past the old operator-side threshold (4 attempts, 90 s): the engine's judgement decides.
    DeliveryStatus failing = new DeliveryStatus(now.minusSeconds(120), 7, 4, now.minusSeconds(90),
        "HTTP 503", List.of());
    KollectTargetStatus s = CrTranslation.status(readyStatus(), null, Map.of("team/hook", failing),
        now, null);
    assertThat(s.conditions()).filteredOn(c -> c.getType().equals("Ready"))
        .singleElement().satisfies(c -> assertThat(c.getStatus()).isEqualTo("True"));
  }
}
