package io.kollect.informers;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;
import org.junit.jupiter.api.Test;

class TrimmingItemStoreTest {

  private static final KubernetesSerialization JSON = new KubernetesSerialization();
  private static final ObjectProjection TWO_FIELDS =
      ObjectProjection.of(List.of(List.of("data", "a"), List.of("data", "b")));

  private static GenericKubernetesResource configMap(String name, String rv) {
    return JSON.unmarshal("""
        {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"%s","namespace":"tenant-1",
        "uid":"uid-%s","resourceVersion":"%s","creationTimestamp":"2026-11-24T06:00:00Z",
        "labels":{"app":"inventory"},"annotations":{"note":"n"},
        "ownerReferences":[{"apiVersion":"v1","kind":"X","name":"o","uid":"o-1"}],
        "managedFields":[{"manager":"kubectl","operation":"Update"}]},
        "data":{"a":"value a of %s","b":"value b","c":"not read"},"binaryData":{"x":"eA=="}}
        """.formatted(name, name, rv, name), GenericKubernetesResource.class);
  }

  @Test
  void anObjectWithIdentityMetadataIsHeldWithoutItsShellsAndReadBackEqualToItsProjection() {
    TrimmingItemStore store = new TrimmingItemStore(TWO_FIELDS);
    GenericKubernetesResource cm = configMap("one", "7");
    String key = store.getKey(cm);
    store.put(key, cm);

    assertThat(store.held()).singleElement().isInstanceOf(CompactResource.class);
    GenericKubernetesResource read = store.get(key);
    assertThat(read).isEqualTo(TWO_FIELDS.apply(configMap("one", "7")));
    assertThat(read.getApiVersion()).isEqualTo("v1");
    assertThat(read.getKind()).isEqualTo("ConfigMap");
    assertThat(read.getMetadata().getOwnerReferences()).hasSize(1);
    assertThat(read.<Object>get("data", "a")).isEqualTo("value a of one");
    assertThat(read.<Object>get("data", "c")).isNull();
    // each read is a new object over the same held strings
    GenericKubernetesResource again = store.get(key);
    assertThat(again).isEqualTo(read).isNotSameAs(read);
    assertThat(again.getMetadata().getUid()).isSameAs(read.getMetadata().getUid());
    assertThat(store.values()).containsExactly(read);
  }

  @Test
  void putAndRemoveAnswerThePreviousStateAsItWasProjected() {
    TrimmingItemStore store = new TrimmingItemStore(TWO_FIELDS);
    String key = store.getKey(configMap("one", "7"));
    assertThat(store.put(key, configMap("one", "7"))).isNull();
    GenericKubernetesResource previous = store.put(key, configMap("one", "8"));
    assertThat(previous).isEqualTo(TWO_FIELDS.apply(configMap("one", "7")));
    assertThat(store.get(key).getMetadata().getResourceVersion()).isEqualTo("8");
    assertThat(store.remove(key)).isEqualTo(TWO_FIELDS.apply(configMap("one", "8")));
    assertThat(store.get(key)).isNull();
    assertThat(store.remove(key)).isNull();
    assertThat(store.size()).isZero();
  }

  @Test
  void severalTopLevelKeysAreHeldAsTheirMapAndReadBackEqual() {
    ObjectProjection twoKeys = ObjectProjection.of(List.of(List.of("data", "a"),
        List.of("binaryData")));
    TrimmingItemStore store = new TrimmingItemStore(twoKeys);
    String key = store.getKey(configMap("one", "7"));
    store.put(key, configMap("one", "7"));
    assertThat(store.held()).singleElement().isInstanceOf(CompactResource.class);
    assertThat(store.get(key)).isEqualTo(twoKeys.apply(configMap("one", "7")));
    assertThat(store.get(key).<Object>get("binaryData", "x")).isEqualTo("eA==");
  }

  @Test
  void anObjectWhoseProjectionKeepsMoreMetadataThanIdentityIsHeldAsItIs() {
    ObjectProjection withAnnotations = ObjectProjection.of(List.of(List.of("data", "a"),
        List.of("metadata", "annotations")));
    TrimmingItemStore store = new TrimmingItemStore(withAnnotations);
    String key = store.getKey(configMap("one", "7"));
    store.put(key, configMap("one", "7"));
    assertThat(store.held()).singleElement().isInstanceOf(GenericKubernetesResource.class);
    assertThat(store.get(key).getMetadata().getAnnotations()).containsEntry("note", "n");
    assertThat(store.get(key)).isEqualTo(withAnnotations.apply(configMap("one", "7")));
  }

  @Test
  void theFullShapeAndObjectsOfAnotherTypeThanTheFirstAreHeldAsTheyAre() {
    TrimmingItemStore full = new TrimmingItemStore(ObjectProjection.full());
    full.put("tenant-1/one", configMap("one", "7"));
    assertThat(full.held()).singleElement().isInstanceOf(GenericKubernetesResource.class);

    TrimmingItemStore store = new TrimmingItemStore(TWO_FIELDS);
    store.put("tenant-1/one", configMap("one", "7"));
    GenericKubernetesResource other = configMap("two", "7");
    other.setApiVersion("example.com/v1");
    store.put("tenant-1/two", other);
    assertThat(store.get("tenant-1/two").getApiVersion()).isEqualTo("example.com/v1");
    assertThat(store.get("tenant-1/one").getApiVersion()).isEqualTo("v1");
    assertThat(store.held()).hasAtLeastOneElementOfType(GenericKubernetesResource.class)
        .hasAtLeastOneElementOfType(CompactResource.class);
  }

  @Test
  void objectsAreHeldByNamespaceAndNameAndKeyedAsFabric8KeysThem() {
    TrimmingItemStore store = new TrimmingItemStore(TWO_FIELDS);
    GenericKubernetesResource one = configMap("one", "7");
    GenericKubernetesResource two = configMap("two", "7");
    two.getMetadata().setNamespace("tenant-2");
    GenericKubernetesResource clusterScoped = configMap("global", "7");
    clusterScoped.getMetadata().setNamespace(null);
    for (GenericKubernetesResource o : List.of(one, two, clusterScoped)) {
      store.put(store.getKey(o), o);
    }
    assertThat(store.keySet()).containsExactlyInAnyOrder("tenant-1/one", "tenant-2/two", "global");
    assertThat(store.size()).isEqualTo(3);
    assertThat(store.objectsIn("tenant-1")).extracting(o -> o.getMetadata().getName())
        .containsExactly("one");
    assertThat(store.objectsIn("tenant-3")).isEmpty();
    assertThat(store.get("global").getMetadata().getNamespace()).isNull();
    assertThat(store.get("tenant-2/one")).isNull();

    assertThat(store.remove("tenant-2/two")).isNotNull();
    assertThat(store.objectsIn("tenant-2")).isEmpty();
    assertThat(store.size()).isEqualTo(2);
    // a namespace that empties and fills again is served as before
    store.put("tenant-2/two", two);
    assertThat(store.objectsIn("tenant-2")).singleElement()
        .satisfies(o -> assertThat(o.getMetadata().getName()).isEqualTo("two"));
  }

  @Test
  void theStoreCountsTheWritesFabric8NotifiesAbout() {
    TrimmingItemStore store = new TrimmingItemStore(TWO_FIELDS);
    store.put("tenant-1/x", configMap("x", "1"));
    store.put("tenant-1/x", configMap("x", "1")); // the same version again: fabric8 does not notify
    store.put("tenant-1/x", configMap("x", "2"));
    store.remove("tenant-1/x");
    store.remove("tenant-1/x"); // nothing held: no notification

    assertThat(store.notifications()).isEqualTo(3);
  }
}
