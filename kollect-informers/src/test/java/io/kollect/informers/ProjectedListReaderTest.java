package io.kollect.informers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

class ProjectedListReaderTest {

  private static final KubernetesSerialization FABRIC8 = new KubernetesSerialization();

  /** Projections of every kind the reader treats apart. */
  private static final List<ObjectProjection> PROJECTIONS = List.of(
      ObjectProjection.full(),
      ObjectProjection.of(List.of(List.of("data", "s"))),
      ObjectProjection.of(List.of(List.of("data"), List.of("status"))),
      ObjectProjection.of(List.of(List.of("spec", "template", "containers", "name"),
          List.of("spec", "template", "containers", "ports", "x"))),
      ObjectProjection.of(List.of(List.of("spec", "replicas", "deeper"), List.of("nothing"))),
      ObjectProjection.of(List.of(List.of("metadata"), List.of("data", "i"))),
      ObjectProjection.of(List.of(List.of("metadata", "annotations", "team"),
          List.of("metadata", "creationTimestamp"), List.of("metadata", "finalizers"))),
      ObjectProjection.of(List.of(List.of("metadata", "annotations"),
          List.of("metadata", "managedFields"), List.of("data", "list", "k"))));

  private static ProjectedListReader reader(ObjectProjection projection) {
    return ProjectedListReader.of(projection, FABRIC8, "v1", "ConfigMap");
  }

  /** fabric8's page, completed as its list operation completes it, then projected. */
  private static List<GenericKubernetesResource> fabric8Projected(String page,
      ObjectProjection projection) {
    List<GenericKubernetesResource> out = new ArrayList<>();
    for (GenericKubernetesResource item
        : FABRIC8.unmarshal(page, GenericKubernetesResourceList.class).getItems()) {
      if (item.getApiVersion() == null) {
        item.setApiVersion("v1");
      }
      if (item.getKind() == null) {
        item.setKind("ConfigMap");
      }
      out.add(projection.apply(item));
    }
    return out;
  }

  private static List<GenericKubernetesResource> readProjected(String page,
      ObjectProjection projection) {
    return reader(projection).read(page.getBytes(StandardCharsets.UTF_8)).getItems().stream()
        .map(projection::apply).toList();
  }

  @Test
  void eachProjectionOfAPageIsWhatFabric8sWholeDecodingProjectsTo() {
    for (ObjectProjection projection : PROJECTIONS) {
      assertThat(readProjected(ProjectedListReader.PROBE, projection)).as(projection.toString())
          .isEqualTo(fabric8Projected(ProjectedListReader.PROBE, projection));
    }
    GenericKubernetesResourceList page = reader(ObjectProjection.full())
        .read(ProjectedListReader.PROBE.getBytes(StandardCharsets.UTF_8));
    assertThat(page.getMetadata())
        .isEqualTo(FABRIC8.unmarshal(ProjectedListReader.PROBE, GenericKubernetesResourceList.class)
            .getMetadata());
    assertThat(page.getMetadata().getContinue()).isEqualTo("c");
    assertThat(page.getMetadata().getResourceVersion()).isEqualTo("12");
  }

  @Test
  void whatTheProjectionDropsIsNotDecoded() {
    GenericKubernetesResource item = reader(ObjectProjection.of(List.of(List.of("data", "s"))))
        .read(ProjectedListReader.PROBE.getBytes(StandardCharsets.UTF_8)).getItems().get(0);
    assertThat(item.getAdditionalProperties()).containsOnlyKeys("data");
    assertThat((java.util.Map<String, Object>) item.getAdditionalProperties().get("data"))
        .containsExactly(java.util.Map.entry("s", "text"));
    assertThat(item.getMetadata().getManagedFields()).isEmpty();
    assertThat(item.getMetadata().getAnnotations()).isEmpty();
    assertThat(item.getMetadata().getCreationTimestamp()).isNull();
    assertThat(item.getMetadata().getFinalizers()).isEmpty();
    assertThat(item.getMetadata().getOwnerReferences()).hasSize(2);
    assertThat(item.getMetadata().getLabels()).containsEntry("app", "web");

    GenericKubernetesResource whole = reader(ObjectProjection.full())
        .read(ProjectedListReader.PROBE.getBytes(StandardCharsets.UTF_8)).getItems().get(0);
    assertThat(whole.getMetadata().getManagedFields()).isEmpty();
    assertThat(whole.getMetadata().getAnnotations()).containsKey(ObjectProjection.LAST_APPLIED);
    assertThat(whole.getAdditionalProperties()).containsKeys("data", "spec", "status", "nothing")
        .doesNotContainKeys("additionalProperties", "additionalPropertiesNode");
  }

  @Test
  void itemsWithoutApiVersionOrKindGetTheOperationsAsFabric8GivesThem() {
    List<GenericKubernetesResource> items = ProjectedListReader.of(ObjectProjection.full(), FABRIC8,
        "apps/v1", "Deployment").read(ProjectedListReader.PROBE.getBytes(StandardCharsets.UTF_8))
        .getItems();
    assertThat(items.get(0).getApiVersion()).isEqualTo("apps/v1");
    assertThat(items.get(0).getKind()).isEqualTo("Deployment");
    assertThat(items.get(1).getApiVersion()).isEqualTo("apps/v1");
  }

  @Test
  void aClientThatDecodesNumbersOtherwiseKeepsFabric8sDecoding() {
    KubernetesSerialization decimals = new KubernetesSerialization(JsonMapper.builder()
        .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).build(), true);
    assertThat(ProjectedListReader.of(ObjectProjection.full(), decimals, "v1", "ConfigMap"))
        .isNull();
    assertThat(ProjectedListReader.of(ObjectProjection.of(List.of(List.of("data", "s"))),
        decimals, "v1", "ConfigMap"))
        .as("the probe reads whole objects too, not only what this projection keeps").isNull();
    assertThat(reader(ObjectProjection.full())).isNotNull();
  }

  @Test
  void aBodyThatIsNotAListOfObjectsFailsToDecode() {
    ProjectedListReader reader = reader(ObjectProjection.full());
    assertThatThrownBy(() -> reader.read("[]".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(JacksonException.class).hasMessageContaining("expected START_OBJECT");
    assertThatThrownBy(() -> reader.read("{\"items\":{}}".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(JacksonException.class).hasMessageContaining("expected START_ARRAY");
    assertThatThrownBy(() -> reader.read("{\"items\":[{\"a\":".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(JacksonException.class);
  }

  @Property(tries = 300)
  void randomObjectsUnderRandomProjectionsReadAsFabric8sDecodingProjects(@ForAll long seed) {
    Random random = new Random(seed);
    StringBuilder page = new StringBuilder("{\"metadata\":{\"resourceVersion\":\"1\"},\"items\":[");
    int items = 1 + random.nextInt(3);
    for (int i = 0; i < items; i++) {
      page.append(i == 0 ? "" : ",").append("{\"metadata\":{\"name\":\"o").append(i)
          .append("\",\"labels\":{\"a\":\"b\"},\"managedFields\":[{\"manager\":\"m\"}]}");
      for (String key : KEYS) {
        if (random.nextInt(3) == 0) {
          page.append(",\"").append(key).append("\":");
          value(random, 3, page);
        }
      }
      page.append('}');
    }
    String json = page.append("]}").toString();
    List<List<String>> paths = new ArrayList<>();
    for (int i = 0, n = 1 + random.nextInt(3); i < n; i++) {
      List<String> path = new ArrayList<>();
      for (int j = 0, depth = 1 + random.nextInt(3); j < depth; j++) {
        path.add(KEYS.get(random.nextInt(KEYS.size())));
      }
      paths.add(path);
    }
    ObjectProjection projection = ObjectProjection.of(paths);
    assertThat(readProjected(json, projection)).as("%s over %s", projection, json)
        .isEqualTo(fabric8Projected(json, projection));
  }

  private static final List<String> KEYS = List.of("a", "b", "c", "data", "spec",
      "additionalProperties");

  /** A random JSON value: maps and lists over a few keys, scalars of each kind. */
  private static void value(Random random, int depth, StringBuilder out) {
    int kind = random.nextInt(depth <= 0 ? 6 : 8);
    switch (kind) {
      case 0 -> out.append('"').append("s").append(random.nextInt(10)).append('"');
      case 1 -> out.append(random.nextInt(2000) - 1000);
      case 2 -> out.append(random.nextLong());
      case 3 -> out.append(random.nextDouble() * 1e6 - 5e5);
      case 4 -> out.append(random.nextBoolean());
      case 5 -> out.append(random.nextBoolean() ? "null" : "123456789012345678901234567890");
      case 6 -> {
        out.append('{');
        String sep = "";
        for (String key : KEYS) {
          if (random.nextInt(2) == 0) {
            out.append(sep).append('"').append(key).append("\":");
            value(random, depth - 1, out);
            sep = ",";
          }
        }
        out.append('}');
      }
      default -> {
        out.append('[');
        for (int i = 0, n = random.nextInt(4); i < n; i++) {
          out.append(i == 0 ? "" : ",");
          value(random, depth - 1, out);
        }
        out.append(']');
      }
    }
  }
}
