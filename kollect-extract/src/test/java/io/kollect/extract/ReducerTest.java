package io.kollect.extract;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReducerTest {

  private static Map<String, JsonNode> fields(String fieldsYaml) {
    return TestObjects.profile("resources: [{group: apps, version: v1, kind: Deployment, fields: " + fieldsYaml + "}]")
        .extract(TestObjects.resource("deployment.yaml"), TestObjects.CTX).orElseThrow().fields();
  }

  @Test
  void countCountsMatchesArrayElementsAndObjectKeysAndIsZeroWhenNothingMatches() {
    Map<String, JsonNode> f = fields("""
        [{name: containers, path: .spec.template.spec.containers, reduce: count},
         {name: ports, path: '.spec.template.spec.containers[*].ports[*]', reduce: count},
         {name: trueConditions, path: '.status.conditions[?(@.status=="True")]', reduce: count},
         {name: labels, path: .metadata.labels, reduce: count},
         {name: scalar, path: .spec.replicas, reduce: count},
         {name: none, path: .spec.nope, reduce: count}]""");
    assertThat(f.get("containers").intValue()).isEqualTo(2);
    assertThat(f.get("ports").intValue()).isEqualTo(3);
    assertThat(f.get("trueConditions").intValue()).isEqualTo(2);
    assertThat(f.get("labels").intValue()).isEqualTo(3);
    assertThat(f.get("scalar").intValue()).isEqualTo(1);
    assertThat(f.get("none").intValue()).isZero();
  }

  @Test
  void sumMinMaxWorkOnNumbersKeepingIntegersIntegral() {
    Map<String, JsonNode> f = fields("""
        [{name: sum, path: '..containerPort', reduce: sum},
         {name: min, path: '..containerPort', reduce: min},
         {name: max, path: '..containerPort', reduce: max},
         {name: sumNone, path: '.spec.nope[*]', reduce: sum},
         {name: minNone, path: '.spec.nope[*]', reduce: min, default: -1}]""");
    assertThat(f.get("sum").isIntegralNumber()).isTrue();
    assertThat(f.get("sum").longValue()).isEqualTo(8080 + 9090 + 9901);
    assertThat(f.get("min").intValue()).isEqualTo(8080);
    assertThat(f.get("max").intValue()).isEqualTo(9901);
    assertThat(f.get("sumNone").intValue()).isZero();
    assertThat(f.get("minNone").intValue()).isEqualTo(-1);
  }

  @Test
  void minAndMaxCompareStringsWhenThereAreNoNumbers() {
    Map<String, JsonNode> f = fields("""
        [{name: latest, path: '.status.conditions[*].lastTransitionTime', reduce: max},
         {name: earliest, path: '.status.conditions[*].lastTransitionTime', reduce: min}]""");
    assertThat(f.get("latest").textValue()).isEqualTo("2024-05-01T10:05:00Z");
    assertThat(f.get("earliest").textValue()).isEqualTo("2024-04-30T09:00:00Z");
  }

  @Test
  void firstAndJoin() {
    Map<String, JsonNode> f = fields("""
        [{name: first, path: '.spec.template.spec.containers[*].image', reduce: first},
         {name: joined, path: '.spec.template.spec.containers[*].name', reduce: join},
         {name: joinedNumbers, path: '..containerPort', reduce: join},
         {name: firstNone, path: '.spec.nope[*]', reduce: first},
         {name: joinNone, path: '.spec.nope[*]', reduce: join, default: ""}]""");
    assertThat(f.get("first").textValue()).isEqualTo("registry.example.com/shop/checkout:2.4.1");
    assertThat(f.get("joined").textValue()).isEqualTo("app,sidecar");
    assertThat(f.get("joinedNumbers").textValue()).isEqualTo("8080,9090,9901");
    assertThat(f).doesNotContainKey("firstNone");
    assertThat(f.get("joinNone").textValue()).isEmpty();
  }

  @Test
  void listModeForcesListsOrScalars() {
    Map<String, JsonNode> f = fields("""
        [{name: alwaysList, path: .spec.replicas, list: true},
         {name: emptyList, path: '.spec.nope[*]', list: true},
         {name: scalarOfMany, path: '.spec.template.spec.containers[*].name', list: false},
         {name: defaultBeatsEmptyList, path: '.spec.nope[*]', list: true, default: [x]}]""");
    assertThat(f.get("alwaysList").toString()).isEqualTo("[3]");
    assertThat(f.get("emptyList").toString()).isEqualTo("[]");
    assertThat(f.get("scalarOfMany").textValue()).isEqualTo("app");
    assertThat(f.get("defaultBeatsEmptyList").toString()).isEqualTo("[\"x\"]");
  }
}
