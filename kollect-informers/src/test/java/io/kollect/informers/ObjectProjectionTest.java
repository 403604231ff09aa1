package io.kollect.informers;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ObjectProjectionTest {

  private static final KubernetesSerialization JSON = new KubernetesSerialization();

  private static GenericKubernetesResource deployment() {
    GenericKubernetesResource d = JSON.convertValue(
        Fixtures.deployment("ns", "web", Map.of("app", "web")), GenericKubernetesResource.class);
    d.getMetadata().setUid("u-1");
    d.getMetadata().setResourceVersion("42");
    d.getMetadata().setGeneration(3L);
    d.getMetadata().setFinalizers(List.of("example.com/cleanup"));
    d.getMetadata().setOwnerReferences(List.of(new OwnerReferenceBuilder().withKind("X")
        .withName("owner").withUid("o-1").withApiVersion("v1").build()));
    d.getMetadata().setManagedFields(List.of(new ManagedFieldsEntryBuilder()
        .withManager("kubectl").withOperation("Update").build()));
    d.setAdditionalProperty("status", Map.of("replicas", 3, "readyReplicas", 2,
        "conditions", List.of(Map.of("type", "Available", "status", "True", "reason", "Min"))));
    return d;
  }

  @Test
  void theFullShapeDropsManagedFieldsAndLastAppliedAndKeepsEverythingElse() {
    GenericKubernetesResource d = deployment();
    GenericKubernetesResource kept = ObjectProjection.full().apply(d);
    assertThat(kept.getMetadata().getManagedFields()).isNull();
    assertThat(kept.getMetadata().getAnnotations())
        .doesNotContainKey(ObjectProjection.LAST_APPLIED)
        .containsEntry("team.example.com/owner", "platform-team");
    assertThat(kept.getMetadata().getFinalizers()).containsExactly("example.com/cleanup");
    assertThat(kept.<Object>get("spec", "strategy", "type")).isEqualTo("RollingUpdate");
    assertThat(kept.<Object>get("status", "readyReplicas")).isEqualTo(2);
  }

  @Test
  void aProjectionKeepsIdentityMetadataAndOnlyTheRequestedPaths() {
    GenericKubernetesResource kept = ObjectProjection.of(List.of(
        List.of("spec", "replicas"),
        List.of("status", "conditions", "type"))).apply(deployment());
    assertThat(kept.getApiVersion()).isEqualTo("apps/v1");
    assertThat(kept.getKind()).isEqualTo("Deployment");
    assertThat(kept.getMetadata().getName()).isEqualTo("web");
    assertThat(kept.getMetadata().getNamespace()).isEqualTo("ns");
    assertThat(kept.getMetadata().getUid()).isEqualTo("u-1");
    assertThat(kept.getMetadata().getResourceVersion()).isEqualTo("42");
    assertThat(kept.getMetadata().getGeneration()).isEqualTo(3L);
    assertThat(kept.getMetadata().getLabels()).containsEntry("app", "web");
    assertThat(kept.getMetadata().getOwnerReferences()).hasSize(1);
    assertThat(kept.getMetadata().getAnnotations()).isNull();
    assertThat(kept.getMetadata().getFinalizers()).isNullOrEmpty();
    assertThat(kept.getMetadata().getManagedFields()).isNullOrEmpty();
    assertThat(kept.getAdditionalProperties()).containsOnlyKeys("spec", "status");
    assertThat((Map<String, Object>) kept.getAdditionalProperties().get("spec"))
        .containsOnlyKeys("replicas");
    // a list on the way keeps the rest of the path of each element
    assertThat(kept.<Object>get("status", "conditions")).isEqualTo(List.of(Map.of("type", "Available")));
  }

  @Test
  void annotationPathsKeepTheNamedKeyOrAllButLastApplied() {
    GenericKubernetesResource one = ObjectProjection.of(List.of(
        List.of("metadata", "annotations", "team.example.com/owner"))).apply(deployment());
    assertThat(one.getMetadata().getAnnotations())
        .containsExactly(Map.entry("team.example.com/owner", "platform-team"));

    GenericKubernetesResource all = ObjectProjection.of(List.of(
        List.of("metadata", "annotations"), List.of("metadata", "finalizers"))).apply(deployment());
    assertThat(all.getMetadata().getAnnotations())
        .containsKeys("team.example.com/owner", "deployment.kubernetes.io/revision")
        .doesNotContainKey(ObjectProjection.LAST_APPLIED);
    assertThat(all.getMetadata().getFinalizers()).containsExactly("example.com/cleanup");
  }

  @Test
  void pathsThatDoNotExistInTheObjectKeepNothingForThem() {
    GenericKubernetesResource kept = ObjectProjection.of(List.of(
        List.of("spec", "nope"), List.of("spec", "replicas", "deeper"), List.of("data")))
        .apply(deployment());
    assertThat(kept.getAdditionalProperties()).isEmpty();
  }

  @Test
  void aPrefixPathSubsumesLongerOnesAndEqualPathSetsAreEqualProjections() {
    ObjectProjection a = ObjectProjection.of(List.of(List.of("spec"), List.of("spec", "replicas")));
    ObjectProjection b = ObjectProjection.of(List.of(List.of("spec")));
    assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
    assertThat(a).isNotEqualTo(ObjectProjection.of(List.of(List.of("spec", "replicas"))));
    assertThat(a).isNotEqualTo(ObjectProjection.full());
    assertThat(a.apply(deployment()).<Object>get("spec", "strategy", "type")).isEqualTo("RollingUpdate");
  }

  @Test
  void theFullShapeCopesWithUnmodifiableAnnotations() {
    GenericKubernetesResource d = deployment();
    d.getMetadata().setAnnotations(Map.of(ObjectProjection.LAST_APPLIED, "{}", "a", "b"));
    assertThat(ObjectProjection.full().apply(d).getMetadata().getAnnotations()).containsExactly(Map.entry("a", "b"));
  }

  @Test
  void anEmptyPathMeansTheWholeObject() {
    assertThat(ObjectProjection.of(List.of(List.of())).isFull()).isTrue();
  }

  @Test
  void theStoreHoldsTheProjectedShapeAndNeverClaimsFullStateSoAddsStreamDuringTheFirstList() {
    TrimmingItemStore store = new TrimmingItemStore(ObjectProjection.of(List.of(List.of("spec", "replicas"))));
    GenericKubernetesResource d = deployment();
    String key = store.getKey(d);
    assertThat(key).isEqualTo("ns/web");
    store.put(key, d);
    assertThat(store.size()).isEqualTo(1);
    assertThat(store.get(key).<Object>get("spec", "replicas")).isEqualTo(3);
    assertThat(store.get(key).<Object>get("spec", "template")).isNull();
    assertThat(store.isFullState()).isFalse();
    assertThat(new TrimmingItemStore(ObjectProjection.full()).isFullState()).isFalse();
    assertThat(store.remove(key)).isNotNull();
    assertThat(store.keySet()).isEmpty();
  }

  @Test
  void aProjectionCoversThePathsItKeepsAndIdentityMetadataButNotWiderOnes() {
    ObjectProjection a = ObjectProjection.of(List.of(List.of("data", "a"), List.of("spec")));
    assertThat(a.covers(List.of(List.of("data", "a")))).isTrue();
    assertThat(a.covers(List.of(List.of("data", "a", "deeper")))).isTrue();
    assertThat(a.covers(List.of(List.of("spec", "replicas"), List.of("spec")))).isTrue();
    assertThat(a.covers(List.of(List.of("metadata", "labels", "app"),
        List.of("metadata", "resourceVersion")))).isTrue();
    assertThat(a.covers(List.of())).isTrue();

    assertThat(a.covers(List.of(List.of("data", "b")))).isFalse();
    assertThat(a.covers(List.of(List.of("data")))).as("the whole of data").isFalse();
    assertThat(a.covers(List.of(List.of("data", "a"), List.of("status")))).isFalse();
    assertThat(a.covers(List.of(List.of("metadata", "annotations")))).isFalse();
    assertThat(a.covers(null)).as("the whole object").isFalse();

    assertThat(ObjectProjection.full().covers(null)).isTrue();
    assertThat(ObjectProjection.full().covers(List.of(List.of("anything")))).isTrue();
    ObjectProjection union = ObjectProjection.of(List.of(List.of("data", "a"), List.of("data", "b")));
    assertThat(union.covers(List.of(List.of("data", "a")))).isTrue();
    assertThat(union.covers(List.of(List.of("data", "b")))).isTrue();
  }

  private static GenericKubernetesResource configMap(String name) {
    return JSON.unmarshal("""
        {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"%s","namespace":"tenant-1",
        "uid":"uid-%s","resourceVersion":"7","creationTimestamp":"2026-11-24T06:00:00Z",
        "labels":{"app":"inventory","tier":"cache"},"ownerReferences":[],
        "managedFields":[{"manager":"kubectl","operation":"Update"}]},
        "data":{"a":"value a of %s","b":"value b of %s","c":"not read"}}
        """.formatted(name, name, name, name), GenericKubernetesResource.class);
  }

  @Test
  void objectsWithEqualOwnerReferencesShareOneUnmodifiableListAndOthersKeepTheirOwn() {
    ObjectProjection projection = ObjectProjection.of(List.of(List.of("data", "a")));
    GenericKubernetesResource one = projection.apply(owned("one", "rs-a"));
    GenericKubernetesResource two = projection.apply(owned("two", "rs-a"));
    GenericKubernetesResource other = projection.apply(owned("three", "rs-b"));

    // parsed separately, yet one list: the Pods of a ReplicaSet hold their owner once
    assertThat(one.getMetadata().getOwnerReferences()).isSameAs(two.getMetadata().getOwnerReferences())
        .singleElement().satisfies(o -> {
          assertThat(o.getName()).isEqualTo("rs-a");
          assertThat(o.getUid()).isEqualTo("uid-rs-a");
          assertThat(o.getController()).isTrue();
        });
    assertThat(other.getMetadata().getOwnerReferences()).isNotSameAs(one.getMetadata().getOwnerReferences())
        .singleElement().satisfies(o -> assertThat(o.getName()).isEqualTo("rs-b"));
    // shared, so no reader may change it under the other objects
    assertThat(one.getMetadata().getOwnerReferences()).isUnmodifiable();
    assertThat(JSON.asJson(one)).contains("\"ownerReferences\":[{\"apiVersion\":\"apps/v1\","
        + "\"kind\":\"ReplicaSet\",\"blockOwnerDeletion\":true,\"controller\":true,\"name\":\"rs-a\","
        + "\"uid\":\"uid-rs-a\"}]");
  }

  @Test
  void referencesToDifferentOwnersStillShareTheirApiVersionKindAndEmptyUnknownFields() {
    ObjectProjection projection = ObjectProjection.of(List.of(List.of("data", "a")));
    OwnerReference a = projection.apply(owned("one", "rs-a")).getMetadata().getOwnerReferences().get(0);
    OwnerReference b = projection.apply(owned("two", "rs-b")).getMetadata().getOwnerReferences().get(0);

    // a Job's Pod, a ReplicaSet's only Pod: the list is its own, what every such reference repeats is not
    assertThat(a.getApiVersion()).isEqualTo("apps/v1").isSameAs(b.getApiVersion());
    assertThat(a.getKind()).isEqualTo("ReplicaSet").isSameAs(b.getKind());
    assertThat(a.getAdditionalProperties()).isEmpty();
    assertThat(a.getAdditionalProperties()).isSameAs(b.getAdditionalProperties());
    assertThat(b.getName()).isEqualTo("rs-b");
    assertThat(b.getUid()).isEqualTo("uid-rs-b");
    assertThat(b.getBlockOwnerDeletion()).isTrue();
  }

  @Test
  void anOwnerReferenceKeepsFieldsThisClientDoesNotKnow() {
    GenericKubernetesResource withUnknown = JSON.unmarshal(JSON.asJson(owned("one", "rs-a"))
        .replace("\"name\":\"rs-a\"", "\"name\":\"rs-a\",\"futureField\":\"kept\""),
        GenericKubernetesResource.class);
    OwnerReference kept = ObjectProjection.of(List.of(List.of("data", "a"))).apply(withUnknown)
        .getMetadata().getOwnerReferences().get(0);
    assertThat(kept.getAdditionalProperties()).containsEntry("futureField", "kept");
  }

  private static GenericKubernetesResource owned(String name, String owner) {
    return JSON.unmarshal("""
        {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"%s","namespace":"tenant-1",
        "uid":"uid-%s","resourceVersion":"7","labels":{"app":"inventory"},
        "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"%s",
        "uid":"uid-%s","controller":true,"blockOwnerDeletion":true}]},
        "data":{"a":"value a of %s"}}
        """.formatted(name, name, owner, owner, name), GenericKubernetesResource.class);
  }

  @Test
  void projectedObjectsShareWhatRepeatsAndKeepOnlyNameUidAndResourceVersionOfTheirOwn() {
    ObjectProjection twoFields = ObjectProjection.of(List.of(List.of("data", "a"), List.of("data", "b")));
    GenericKubernetesResource one = twoFields.apply(configMap("one"));
    GenericKubernetesResource two = twoFields.apply(configMap("two"));
    // parsed separately, yet one instance each: namespace, kind, label keys and values, label set
    assertThat(one.getMetadata().getNamespace()).isSameAs(two.getMetadata().getNamespace());
    assertThat(one.getKind()).isSameAs(two.getKind());
    assertThat(one.getApiVersion()).isSameAs(two.getApiVersion());
    assertThat(one.getMetadata().getLabels()).isSameAs(two.getMetadata().getLabels())
        .containsExactly(Map.entry("app", "inventory"), Map.entry("tier", "cache"));
    assertThat(one.getMetadata().getCreationTimestamp()).isNull();
    assertThat(one.getMetadata().getManagedFields()).isNull();
    assertThat(one.getMetadata().getOwnerReferences()).isEmpty();
    assertThat(one.getMetadata().getUid()).isEqualTo("uid-one");
    // the kept map reads like any map, in the API server's (sorted) key order
    Map<String, Object> data = (Map<String, Object>) one.getAdditionalProperties().get("data");
    assertThat(data).isEqualTo(Map.of("a", "value a of one", "b", "value b of one"));
    assertThat(data.keySet()).containsExactly("a", "b");
    assertThat(data.get("c")).isNull();
    assertThat(one.getAdditionalProperties()).containsOnlyKeys("data");
    assertThat(JSON.asJson(one)).contains("\"data\":{\"a\":\"value a of one\",\"b\":\"value b of one\"}");
  }

  @Test
  void creationTimestampIsKeptWhenALeaseReadsIt() {
    List<List<String>> paths = List.of(List.of("data", "a"), List.of("metadata", "creationTimestamp"));
    ObjectProjection p = ObjectProjection.of(paths);
    assertThat(p.covers(paths)).isTrue();
    assertThat(ObjectProjection.of(List.of(List.of("data", "a")))
        .covers(List.of(List.of("metadata", "creationTimestamp")))).isFalse();
    assertThat(p.apply(configMap("x")).getMetadata().getCreationTimestamp())
        .isEqualTo("2026-11-24T06:00:00Z");
  }
}
