package io.kollect.extract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.junit.jupiter.api.Test;

class KubectlPathTest {

  private static final JsonNode POD = TestObjects.yaml("""
      metadata:
        labels: {app.kubernetes.io/name: shop, "it's": quoted}
      spec:
        containers:
        - {name: a, image: i1, ports: [{name: http, containerPort: 80}]}
        - {name: b, image: i2}
        - {name: c, image: i3, ports: [{name: admin, containerPort: 9901}]}
      status:
        conditions:
        - {type: Ready, status: "True"}
        - {type: Synced, status: "False"}
      """);

  private static String matches(String path) throws Exception {
    com.fasterxml.jackson.databind.node.ArrayNode a = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.arrayNode();
    KubectlPath.parse(path).matches(POD).forEach(a::add);
    return a.toString();
  }

  @Test
  void dottedKeysEscapedOrQuotedAddressOneKey() throws Exception {
    assertThat(matches("{.metadata.labels.app\\.kubernetes\\.io/name}")).isEqualTo("[\"shop\"]");
    assertThat(matches(".metadata.labels['app.kubernetes.io/name']")).isEqualTo("[\"shop\"]");
    assertThat(matches(".metadata.labels['it\\'s']")).isEqualTo("[\"quoted\"]");
  }

  @Test
  void filtersCompareFieldsWithLiteralsAndMayUseRecursiveDescent() throws Exception {
    assertThat(matches("{.status.conditions[?(@.type==\"Ready\")].status}")).isEqualTo("[\"True\"]");
    assertThat(matches(".spec.containers[?(@..containerPort > 100)].name")).isEqualTo("[\"c\"]");
    assertThat(matches(".spec.containers[?(@.ports)].name")).isEqualTo("[\"a\",\"c\"]");
  }

  @Test
  void slicesFollowKubectlIncludingNegativeEndsAndSteps() throws Exception {
    assertThat(matches(".spec.containers[0:-1].name")).isEqualTo("[\"a\",\"b\"]");
    assertThat(matches(".spec.containers[-2:3].name")).isEqualTo("[\"b\",\"c\"]");
    assertThat(matches(".spec.containers[::2].name")).isEqualTo("[\"a\",\"c\"]");
    assertThat(matches(".spec.containers[-1:0].name")).as("an error in kubectl: nothing for a collector").isEqualTo("[]");
    assertThat(matches(".spec.containers[0:10].name")).as("a collector cuts the end").isEqualTo("[\"a\",\"b\",\"c\"]");
    assertThatThrownBy(() -> KubectlPath.parse(".spec.containers[-1:0]").evaluate(POD, false))
        .isInstanceOf(PathEvaluationException.class).hasMessage("starting index 2 is greater than ending index 0");
  }

  @Test
  void unionMembersInQuotesArePaths() throws Exception {
    assertThat(matches(".spec.containers[*]['name', 'ports[0].name']")).isEqualTo("[\"a\",\"b\",\"c\"]");
    assertThat(matches(".spec.containers[0]['name','image']")).isEqualTo("[\"a\",\"i1\"]");
    assertThat(matches(".spec.containers[0,-1].name")).isEqualTo("[\"a\",\"c\"]");
  }

  @Test
  void kollectsExtensionsWhereKubectlPrintsNothingOrFails() throws Exception {
    assertThat(matches(".metadata.labels[*]")).isEqualTo("[\"shop\",\"quoted\"]");
    assertThat(matches(".status..*")).contains("\"Ready\"", "\"False\"");
    assertThat(matches("{\"text\"}")).isEqualTo("[\"text\"]");
    assertThat(matches(".spec.containers[?(@.name == $.spec.containers[2].name)].image")).isEqualTo("[\"i3\"]");
    assertThat(matches(".spec.containers[?(@.name == 1)].image")).as("a type mismatch matches nothing").isEqualTo("[]");
  }

  @Test
  void staticPrefixStopsAtTheFirstDynamicSegment() throws Exception {
    assertThat(KubectlPath.parse(".spec.template.spec.containers[*].image").staticPrefix())
        .containsExactly("spec", "template", "spec", "containers");
    assertThat(KubectlPath.parse(".metadata.labels['a.b/c']").staticPrefix())
        .containsExactly("metadata", "labels", "a.b/c");
    assertThat(KubectlPath.parse("..name").staticPrefix()).isEmpty();
    assertThat(KubectlPath.parse(".spec.containers[0].name").staticPrefix()).isEqualTo(List.of("spec", "containers"));
    assertThat(KubectlPath.parse(".a[?(@.x == $.spec.y)]").readsRoot()).isTrue();
    assertThat(KubectlPath.parse(".a[?(@.x == 1)]").readsRoot()).isFalse();
  }

  @Test
  void syntaxErrorsCarryTheColumn() {
    assertThatThrownBy(() -> KubectlPath.parse("{.status.conditions]}"))
        .hasMessage("unexpected ']' at column 20");
    assertThatThrownBy(() -> KubectlPath.parse(".spec....")).hasMessage("invalid multiple recursive descent at column 8");
    assertThatThrownBy(() -> KubectlPath.parse(".spec.containers[0")).hasMessage("'[' is never closed at column 17");
    assertThatThrownBy(() -> KubectlPath.parse(".a[?(@.x==1]")).hasMessage("'(' is never closed at column 5");
    assertThatThrownBy(() -> KubectlPath.parse(".a[?()]")).hasMessage("empty filter at column 5");
    assertThatThrownBy(() -> KubectlPath.parse(".a[?(@.x<>1)]")).hasMessage("unrecognized filter operator <> at column 9");
    assertThatThrownBy(() -> KubectlPath.parse(".a\\b")).hasMessage("only '.' can be escaped with '\\' at column 3");
    assertThatThrownBy(() -> KubectlPath.parse("{.a")).hasMessage("'{' is never closed at column 1");
    assertThatThrownBy(() -> KubectlPath.parse("{hello}")).hasMessage("unrecognized identifier hello at column 2");
  }

  @Test
  void textOutputConstructsAreRefusedByName() {
    assertThatThrownBy(() -> KubectlPath.parse("{range .items[*]}{.name}{end}"))
        .hasMessageContaining("{range}/{end} templates are not supported");
    assertThatThrownBy(() -> KubectlPath.parse("{.a} {.b}"))
        .hasMessage("only one {...} expression is supported, found another block at column 6");
    assertThatThrownBy(() -> KubectlPath.parse("{.a} and text"))
        .hasMessage("only one {...} expression is supported, found more text at column 6");
  }
}
