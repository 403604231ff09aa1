package io.kollect.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LabelSelectorMatcherTest {

  private static LabelSelectorMatcher compile(LabelSelector s) {
    return LabelSelectorMatcher.compile(s, "labelSelector");
  }

  @Test
  void noSelectorMatchesEverythingIncludingObjectsWithoutLabels() {
    assertThat(compile(null).test(null)).isTrue();
    assertThat(compile(new LabelSelector()).test(Map.of("a", "b"))).isTrue();
  }

  @Test
  void matchLabelsAndExpressionsAreAllRequired() {
    LabelSelectorMatcher m = compile(new LabelSelectorBuilder()
        .addToMatchLabels("app", "web")
        .addNewMatchExpression().withKey("tier").withOperator("In").withValues("a", "b").endMatchExpression()
        .addNewMatchExpression().withKey("env").withOperator("NotIn").withValues("dev").endMatchExpression()
        .addNewMatchExpression().withKey("owner").withOperator("Exists").endMatchExpression()
        .addNewMatchExpression().withKey("legacy").withOperator("DoesNotExist").endMatchExpression()
        .build());
    Map<String, String> ok = Map.of("app", "web", "tier", "b", "owner", "x");
    assertThat(m.test(ok)).isTrue();
    assertThat(m.test(Map.of("app", "web", "tier", "b", "owner", "x", "env", "prod"))).isTrue();
    assertThat(m.test(Map.of("app", "web", "tier", "b", "owner", "x", "env", "dev"))).isFalse();
    assertThat(m.test(Map.of("app", "api", "tier", "b", "owner", "x"))).isFalse();
    assertThat(m.test(Map.of("app", "web", "tier", "c", "owner", "x"))).isFalse();
    assertThat(m.test(Map.of("app", "web", "owner", "x"))).isFalse();
    assertThat(m.test(Map.of("app", "web", "tier", "b"))).isFalse();
    assertThat(m.test(Map.of("app", "web", "tier", "b", "owner", "x", "legacy", ""))).isFalse();
    assertThat(m.test(null)).isFalse();
  }

  @Test
  void invalidSelectorsAreRejectedNamingTheField() {
    assertThatThrownBy(() -> compile(new LabelSelectorBuilder().addNewMatchExpression()
        .withKey("k").withOperator("Maybe").endMatchExpression().build()))
        .hasMessage("labelSelector.matchExpressions[0].operator: unknown operator 'Maybe', "
            + "expected In, NotIn, Exists or DoesNotExist");
    assertThatThrownBy(() -> compile(new LabelSelectorBuilder().addNewMatchExpression()
        .withKey("k").withOperator("In").endMatchExpression().build()))
        .hasMessage("labelSelector.matchExpressions[0].values: must not be empty for In");
    assertThatThrownBy(() -> compile(new LabelSelectorBuilder().addNewMatchExpression()
        .withKey("k").withOperator("Exists").withValues("v").endMatchExpression().build()))
        .hasMessage("labelSelector.matchExpressions[0].values: must be empty for Exists");
    assertThatThrownBy(() -> compile(new LabelSelectorBuilder().addNewMatchExpression()
        .withOperator("Exists").endMatchExpression().build()))
        .hasMessage("labelSelector.matchExpressions[0].key: label key must not be empty");
  }
}
