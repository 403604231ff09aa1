package io.kollect.informers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LabelSelectorMatcherTest {

  private static LabelSelectorRequirement req(String key, String op, String... values) {
    return new LabelSelectorRequirement(key, op, List.of(values));
  }

  private static LabelSelectorMatcher compile(Map<String, String> labels, LabelSelectorRequirement... exprs) {
    return LabelSelectorMatcher.compile(new LabelSelectorBuilder().withMatchLabels(labels)
        .withMatchExpressions(exprs).build(), "labelSelector");
  }

  @Test
  void nullAndEmptySelectorsMatchEverythingIncludingNoLabels() {
    assertThat(LabelSelectorMatcher.compile(null, "labelSelector").test(null)).isTrue();
    assertThat(LabelSelectorMatcher.compile(new LabelSelector(), "labelSelector").test(Map.of("a", "b"))).isTrue();
  }

  @Test
  void matchLabelsRequireEveryPair() {
    LabelSelectorMatcher m = compile(Map.of("app", "web", "tier", "front"));
    assertThat(m.test(Map.of("app", "web", "tier", "front", "x", "y"))).isTrue();
    assertThat(m.test(Map.of("app", "web"))).isFalse();
    assertThat(m.test(null)).isFalse();
  }

  @Test
  void expressionsFollowApiServerSemantics() {
    assertThat(compile(null, req("env", "In", "prod", "stage")).test(Map.of("env", "prod"))).isTrue();
    assertThat(compile(null, req("env", "In", "prod")).test(Map.of())).isFalse();
    assertThat(compile(null, req("env", "NotIn", "prod")).test(Map.of("env", "dev"))).isTrue();
    // NotIn matches objects without the label, as the API server does
    assertThat(compile(null, req("env", "NotIn", "prod")).test(Map.of())).isTrue();
    assertThat(compile(null, req("env", "NotIn", "prod")).test(Map.of("env", "prod"))).isFalse();
    assertThat(compile(null, req("env", "Exists")).test(Map.of("env", ""))).isTrue();
    assertThat(compile(null, req("env", "Exists")).test(Map.of())).isFalse();
    assertThat(compile(null, req("env", "DoesNotExist")).test(Map.of())).isTrue();
    assertThat(compile(null, req("env", "DoesNotExist")).test(Map.of("env", "x"))).isFalse();
    assertThat(compile(Map.of("app", "web"), req("env", "Exists")).test(Map.of("env", "x"))).isFalse();
  }

  @Test
  void invalidSelectorsAreRejectedNamingTheField() {
    assertThatThrownBy(() -> compile(null, req("env", "Near", "x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("labelSelector.matchExpressions[0].operator")
        .hasMessageContaining("Near");
    assertThatThrownBy(() -> compile(null, req("env", "In")))
        .hasMessageContaining("labelSelector.matchExpressions[0].values");
    assertThatThrownBy(() -> compile(null, req("env", "Exists", "x")))
        .hasMessageContaining("must be empty");
    assertThatThrownBy(() -> compile(null, req("", "Exists")))
        .hasMessageContaining("labelSelector.matchExpressions[0].key");
    assertThatThrownBy(() -> compile(null, new LabelSelectorRequirement("k", null, List.of())))
        .hasMessageContaining("labelSelector.matchExpressions[0].operator: must be one of In, NotIn");
  }

  @Test
  void errorsNameTheFieldTheCallerGave() {
    Map<String, String> nullValue = new java.util.HashMap<>();
    nullValue.put("tier", null);
    assertThatThrownBy(() -> LabelSelectorMatcher.compile(new LabelSelector(List.of(), nullValue),
        "scope.namespaceSelector"))
        .hasMessage("scope.namespaceSelector.matchLabels[tier]: value must be set");
    assertThatThrownBy(() -> LabelSelectorMatcher.compile(new LabelSelectorBuilder()
        .addNewMatchExpression().withKey("k").withOperator("Maybe").endMatchExpression().build(),
        "scope.labelSelector"))
        .hasMessage("scope.labelSelector.matchExpressions[0].operator: unknown operator 'Maybe', "
            + "expected In, NotIn, Exists or DoesNotExist");
  }
}
