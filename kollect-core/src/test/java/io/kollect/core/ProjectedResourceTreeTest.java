package io.kollect.core;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.module.SimpleModule;
import tools.jackson.databind.ser.std.ToStringSerializer;

class ProjectedResourceTreeTest {

  private static final KubernetesSerialization CLIENT = new KubernetesSerialization();
  private static final ObjectMapper JACKSON2 = new ObjectMapper();

  private static void assertBuildsWhatTheClientBuilds(GenericKubernetesResource r)
      throws Exception {
    JsonNode direct = ProjectedResourceTree.of(r);
    JsonNode general = ClientJson.toTree(CLIENT, r);
    assertThat(direct).as("built directly").isNotNull();
    // the same text (keys in the same order) and the same node and number types throughout
    assertThat(JACKSON2.writeValueAsString(direct)).isEqualTo(JACKSON2.writeValueAsString(general));
    assertThat(ProjectedResourceTree.sameTree(direct, general)).isTrue();
  }

  @Test
  void theProbeOfEveryValueAndMetadataFieldIsBuiltAsTheClientBuildsIt() throws Exception {
    assertBuildsWhatTheClientBuilds(ProjectedResourceTree.probe());
  }

  @Property(tries = 300)
  void aDecodedAndProjectedObjectIsBuiltAsTheClientBuildsIt(
      @ForAll("decodedObjects") String json, @ForAll boolean identityMetadataOnly)
      throws Exception {
    GenericKubernetesResource r = CLIENT.unmarshal(json, GenericKubernetesResource.class);
    if (identityMetadataOnly) {
      // as the projection store keeps it: identity fields, empty collections, no extra keys
      ObjectMeta m = r.getMetadata();
      m.setAnnotations(null);
      m.setFinalizers(null);
      m.setManagedFields(null);
      m.setAdditionalProperties(Map.of());
    }
    assertBuildsWhatTheClientBuilds(r);
  }

  @Provide
  Arbitrary<String> decodedObjects() {
    Arbitrary<String> texts = Arbitraries.strings().ofMaxLength(6);
    Arbitrary<String> scalars = Arbitraries.oneOf(
        texts.map(t -> JACKSON2.getNodeFactory().textNode(t).toString()),
        Arbitraries.integers().map(String::valueOf),
        Arbitraries.longs().map(String::valueOf),
        Arbitraries.bigIntegers().between(BigInteger.TEN.pow(19), BigInteger.TEN.pow(25))
            .map(String::valueOf),
        Arbitraries.doubles().between(-1e6, 1e6).ofScale(3).map(String::valueOf),
        Arbitraries.of("true", "false", "null", "{}", "[]", "1e300", "-0.0", "0.1"));
    Arbitrary<String> lists = scalars.list().ofMaxSize(4).map(l -> "[" + String.join(",", l) + "]");
    Arbitrary<String> values = Arbitraries.oneOf(scalars, lists,
        Arbitraries.maps(texts, Arbitraries.oneOf(scalars, lists)).ofMaxSize(4)
            .map(ProjectedResourceTreeTest::object));
    Arbitrary<String> labels = Arbitraries.maps(texts, texts).ofMaxSize(3).map(m -> {
      Map<String, String> quoted = new LinkedHashMap<>();
      m.forEach((k, v) -> quoted.put(k, JACKSON2.getNodeFactory().textNode(v).toString()));
      return object(quoted);
    });
    Arbitrary<String> topLevel = Arbitraries.maps(
        Arbitraries.of("data", "spec", "status", "binaryData", "type", "immutable", "rules"), values)
        .ofMaxSize(4).map(ProjectedResourceTreeTest::object);
    // owner references with each flag set, unset or false, in the API server's key order
    Arbitrary<String> flag = Arbitraries.of("", "true", "false");
    Arbitrary<String> owner = net.jqwik.api.Combinators.combine(flag, flag, texts).as(
        (block, controller, name) -> "{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\","
            + "\"name\":" + JACKSON2.getNodeFactory().textNode(name) + ",\"uid\":\"o-1\""
            + (controller.isEmpty() ? "" : ",\"controller\":" + controller)
            + (block.isEmpty() ? "" : ",\"blockOwnerDeletion\":" + block) + "}");
    Arbitrary<String> owners = owner.list().ofMaxSize(2).map(l -> "[" + String.join(",", l) + "]");
    return net.jqwik.api.Combinators.combine(labels, labels, topLevel, Arbitraries.longs()
        .between(0, 99), owners).as((l, a, top, generation, refs) -> {
          String metadata = "{\"name\":\"n\",\"namespace\":\"ns\",\"uid\":\"u\","
              + "\"resourceVersion\":\"7\",\"generation\":" + generation + ",\"labels\":" + l
              + ",\"annotations\":" + a + ",\"finalizers\":[\"f\"],"
              + "\"ownerReferences\":" + refs + ","
              + "\"creationTimestamp\":\"2026-01-01T00:00:00Z\"}";
          return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":" + metadata
              + (top.equals("{}") ? "" : "," + top.substring(1, top.length() - 1)) + "}";
        });
  }

  private static String object(Map<String, String> fields) {
    StringBuilder out = new StringBuilder("{");
    fields.forEach((k, v) -> out.append(out.length() > 1 ? "," : "")
        .append(JACKSON2.getNodeFactory().textNode(k)).append(':').append(v));
    return out.append('}').toString();
  }

  @Test
  void whatOnlyTheClientCanWriteGoesTheGeneralWayAndComesOutTheSame() throws Exception {
    Function<GenericKubernetesResource, JsonNode> toTree = ProjectedResourceTree.forClient(CLIENT);
    List<GenericKubernetesResource> others = new ArrayList<>();
    others.add(withProperty("ratio", 0.5f));
    others.add(withProperty("price", new BigDecimal("1.50")));
    others.add(withProperty("cpu", new Quantity("500m")));
    others.add(withProperty("kind", "Shadow"));
    others.add(withProperty("nested", Map.of(1, "not a text key")));
    GenericKubernetesResource owned = withProperty("data", Map.of("k", "v"));
    OwnerReference extra = new OwnerReference("apps/v1", true, true, "ReplicaSet", "rs", "u1");
    extra.setAdditionalProperty("future", "field");
    owned.getMetadata().setOwnerReferences(List.of(extra));
    others.add(owned);
    GenericKubernetesResource managed = withProperty("data", Map.of("k", "v"));
    managed.getMetadata().setManagedFields(List.of(new ManagedFieldsEntry()));
    others.add(managed);

    for (GenericKubernetesResource r : others) {
      assertThat(ProjectedResourceTree.of(r)).as("%s", r.getAdditionalProperties()).isNull();
      assertThat(toTree.apply(r)).isEqualTo(ClientJson.toTree(CLIENT, r));
    }
  }

  @Test
  void aClientThatWritesValuesOtherwiseKeepsItsOwnConversion() {
    // an embedder's client whose mapper writes integers as text: the direct tree would disagree
    KubernetesSerialization own = new KubernetesSerialization(JsonMapper.builder()
        .addModule(new SimpleModule().addSerializer(Integer.class, ToStringSerializer.instance))
        .build(), true);
    GenericKubernetesResource r = withProperty("data", Map.of("replicas", 3));

    JsonNode tree = ProjectedResourceTree.forClient(own).apply(r);

    assertThat(tree.at("/data/replicas").isTextual()).isTrue();
    assertThat(tree).isEqualTo(ClientJson.toTree(own, r));
    assertThat(ProjectedResourceTree.forClient(CLIENT).apply(r).at("/data/replicas").isInt())
        .isTrue();
  }

  private static GenericKubernetesResource withProperty(String key, Object value) {
    GenericKubernetesResource r = new GenericKubernetesResource();
    r.setApiVersion("v1");
    r.setKind("ConfigMap");
    ObjectMeta meta = new ObjectMeta();
    meta.setName("n");
    meta.setNamespace("ns");
    r.setMetadata(meta);
    Map<String, Object> props = new LinkedHashMap<>();
    props.put(key, value);
    r.setAdditionalProperties(props);
    return r;
  }
}
