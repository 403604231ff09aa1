package io.kollect.samples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The catalog's layout contract (team brief, "Sample catalog layout"): what `kollect test`, the live
 * tests, the e2e and `kollect demo` rely on when they read a sample.
 */
class SampleCatalogTest {

  static Stream<Sample> samples() {
    return Sample.all().stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("samples")
  void profileIsAWholeKollectProfileNamedLikeTheSample(Sample sample) {
    assertThat(sample.profile().path("apiVersion").asText()).isEqualTo("kollect.io/v1alpha1");
    assertThat(sample.profile().path("kind").asText()).isEqualTo("KollectProfile");
    assertThat(sample.profileName()).isEqualTo(sample.name());
    assertThat(sample.profile().path("spec").path("resources").size()).isPositive();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("samples")
  void targetWritesInventoryForItsProfileInTheDemoNamespaceWithoutSinks(Sample sample) {
    JsonNode target = sample.target();
    assertThat(target.path("apiVersion").asText()).isEqualTo("kollect.io/v1alpha1");
    assertThat(target.path("kind").asText()).isEqualTo("KollectTarget");
    assertThat(target.path("metadata").path("name").asText()).isEqualTo(sample.name());
    assertThat(target.path("metadata").path("namespace").asText()).isEqualTo(Sample.NAMESPACE);
    JsonNode spec = target.path("spec");
    assertThat(spec.path("profileRef").asText()).isEqualTo(sample.profileName());
    assertThat(spec.path("writeInventory").asBoolean()).isTrue();
    assertThat(spec.has("sinkRefs")).as("samples write inventory only").isFalse();
    assertThat(spec.path("scope").path("namespaces").toString())
        .isEqualTo("[\"" + Sample.NAMESPACE + "\"]");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("samples")
  void fixturesAreAppliableObjectsInTheDemoNamespaceSelectedByTheTarget(Sample sample) {
    assertThat(sample.inputs()).isNotEmpty();
    JsonNode matchLabels =
        sample.target().path("spec").path("scope").path("labelSelector").path("matchLabels");
    for (JsonNode object : sample.inputs()) {
      JsonNode meta = object.path("metadata");
      String what = sample.name() + ": " + object.path("kind").asText() + " "
          + meta.path("name").asText();
      assertThat(object.path("apiVersion").asText()).as(what).isNotEmpty();
      assertThat(meta.path("namespace").asText()).as(what).isEqualTo(Sample.NAMESPACE);
      assertThat(meta.has("uid")).as(what + " has no uid").isFalse();
      assertThat(meta.has("resourceVersion")).as(what + " has no resourceVersion").isFalse();
      // Every sample shares the namespace: the target must select exactly its own fixtures.
      for (Iterator<Map.Entry<String, JsonNode>> it = matchLabels.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> label = it.next();
        assertThat(meta.path("labels").path(label.getKey()).asText())
            .as(what + " carries the target's label " + label.getKey())
            .isEqualTo(label.getValue().asText());
      }
    }
    assertThat(matchLabels.path("kollect.io/sample").asText()).isEqualTo(sample.name());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("samples")
  void goldenHasOneUpsertPerFixtureSortedByKey(Sample sample) {
    List<String> keys = new ArrayList<>();
    for (JsonNode record : sample.expected()) {
      assertThat(record.path("op").asText()).isEqualTo("UPSERT");
      assertThat(record.path("profile").asText()).isEqualTo(sample.profileName());
      keys.add(Sample.key(record));
    }
    assertThat(keys).isSorted().doesNotHaveDuplicates();
    List<String> fixtureKeys = sample.inputs().stream()
        .map(o -> groupOf(o.path("apiVersion").asText()) + "/" + o.path("kind").asText() + "/"
            + o.path("metadata").path("namespace").asText() + "/"
            + o.path("metadata").path("name").asText())
        .sorted()
        .toList();
    assertThat(keys).isEqualTo(fixtureKeys);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("samples")
  void fixtureCrdsServeTheProfilesCustomKinds(Sample sample) {
    for (JsonNode resource : sample.profile().path("spec").path("resources")) {
      String group = resource.path("group").asText();
      if (group.isEmpty() || group.endsWith(".k8s.io") || group.equals("apps")) {
        continue;
      }
      assertThat(sample.crds())
          .as("%s: a fixture CRD serving %s/%s", sample.name(), group, resource.path("kind").asText())
          .anySatisfy(crd -> {
            assertThat(crd.path("spec").path("group").asText()).isEqualTo(group);
            assertThat(crd.path("spec").path("names").path("kind").asText())
                .isEqualTo(resource.path("kind").asText());
            assertThat(crd.path("spec").path("versions").findValuesAsText("name"))
                .contains(resource.path("version").asText());
          });
    }
  }

  private static String groupOf(String apiVersion) {
    int slash = apiVersion.indexOf('/');
    return slash < 0 ? "" : apiVersion.substring(0, slash);
  }
}
