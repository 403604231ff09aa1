package io.kollect.extract;

import static io.kollect.extract.TestObjects.CTX;
import static io.kollect.extract.TestObjects.profile;
import static io.kollect.extract.TestObjects.resource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CompiledProfileTest {

  static final String DEPLOYMENTS = """
      resources:
      - group: apps
        version: v1
        kind: Deployment
        labels: ["app.kubernetes.io/*"]
        annotations: ["*"]
        fields:
        - {name: replicas, path: .spec.replicas}
        - {name: images, path: "{.spec.template.spec.containers[*].image}"}
        - {name: available, path: '.status.conditions[?(@.type=="Available")].status', list: false}
        - {name: containerCount, path: .spec.template.spec.containers, reduce: count}
        - {name: missing, path: .spec.paused}
        - {name: pausedOrDefault, path: .spec.paused, default: false}
        - {name: strategy, path: .spec.strategy}
        - {name: env, path: ".spec.template.spec.containers[0].env"}
        - {name: args, path: ".spec.template.spec.containers[0].args"}
      """;

  @Test
  void extractsDeclaredFieldsWithTheirJsonTypesAndRecordIdentity() {
    Record r = profile(DEPLOYMENTS).extract(resource("deployment.yaml"), CTX).orElseThrow();
    assertThat(r.op()).isEqualTo(Op.UPSERT);
    assertThat(r.cluster()).isEqualTo("c1");
    assertThat(r.target()).isEqualTo("ns/t1");
    assertThat(r.profile()).isEqualTo("test");
    assertThat(r.resource()).isEqualTo(new GroupVersionKind("apps", "v1", "Deployment"));
    assertThat(r.namespace()).isEqualTo("shop");
    assertThat(r.name()).isEqualTo("checkout");
    assertThat(r.uid()).isEqualTo("5f1c2a7e-1111-4c3b-9d0e-0a1b2c3d4e5f");
    assertThat(r.resourceVersion()).isEqualTo("48213");
    assertThat(r.observedAt()).isEqualTo(CTX.observedAt());
    assertThat(r.key()).isEqualTo("apps/Deployment/shop/checkout");

    Map<String, JsonNode> f = r.fields();
    assertThat(f.get("replicas").isIntegralNumber()).isTrue();
    assertThat(f.get("replicas").intValue()).isEqualTo(3);
    assertThat(f.get("images").toString())
        .isEqualTo("[\"registry.example.com/shop/checkout:2.4.1\",\"registry.example.com/infra/envoy:1.29.0\"]");
    assertThat(f.get("available").textValue()).isEqualTo("True");
    assertThat(f.get("containerCount").intValue()).isEqualTo(2);
    assertThat(f).doesNotContainKey("missing");
    assertThat(f.get("pausedOrDefault").booleanValue()).isFalse();
    assertThat(f.get("strategy").isObject()).isTrue();
    assertThat(f.get("strategy").path("rollingUpdate").path("maxUnavailable").intValue()).isZero();
    assertThat(List.copyOf(f.keySet())).containsExactly(
        "replicas", "images", "available", "containerCount", "pausedOrDefault", "strategy", "env", "args");
  }

  @Test
  void labelsAndAnnotationsFollowTheAllowListsAndLastAppliedIsNeverCopied() {
    Record r = profile(DEPLOYMENTS).extract(resource("deployment.yaml"), CTX).orElseThrow();
    assertThat(r.labels()).containsOnlyKeys("app.kubernetes.io/name", "app.kubernetes.io/part-of");
    assertThat(r.annotations()).containsOnlyKeys("deployment.kubernetes.io/revision", "owner.example.com/team");
    assertThat(Records.toJsonLine(r)).doesNotContain("lastapplied-leak");
  }

  @Test
  void withoutAllowListsNoLabelsOrAnnotationsAreCopied() {
    Record r = profile("resources: [{group: apps, version: v1, kind: Deployment, fields: [{name: r, path: .spec.replicas}]}]")
        .extract(resource("deployment.yaml"), CTX).orElseThrow();
    assertThat(r.labels()).isEmpty();
    assertThat(r.annotations()).isEmpty();
  }

  @Test
  void lastAppliedIsHiddenFromPathsToo() {
    Record r = profile("resources: [{group: apps, version: v1, kind: Deployment, fields: [{name: a, path: .metadata.annotations}]}]")
        .extract(resource("deployment.yaml"), CTX).orElseThrow();
    assertThat(r.fields().get("a").has("owner.example.com/team")).isTrue();
    assertThat(r.fields().get("a").has(CompiledRule.LAST_APPLIED)).isFalse();
  }

  @Test
  void envValuesNamedLikeSecretsAndSensitiveArgsAreScrubbed() {
    Record r = profile(DEPLOYMENTS).extract(resource("deployment.yaml"), CTX).orElseThrow();
    String json = Records.toJsonLine(r);
    assertThat(json).doesNotContain("s3cr3t-db", "hunter2", "tok-123", "pgpass-42");
    assertThat(r.fields().get("env").get(0).path("value").textValue()).isEqualTo("info");
    assertThat(r.fields().get("env").get(1).path("value").textValue()).isEqualTo("********");
    assertThat(r.fields().get("env").get(2).path("value").textValue())
        .isEqualTo("postgres://checkout:********@db.shop:5432/checkout");
    assertThat(r.fields().get("args").toString())
        .isEqualTo("[\"--port=8080\",\"--db-password=********\",\"--api-token\",\"********\",\"--verbose\"]");
  }

  @Test
  void aFilterSelectingASecretEnvValueStillYieldsOnlyTheMask() {
    Record r = profile("""
        resources:
        - group: apps
          version: v1
          kind: Deployment
          fields:
          - {name: pw, path: '.spec.template.spec.containers[*].env[?(@.name=="DB_PASSWORD")].value'}
          - {name: every, path: '..value'}
        """).extract(resource("deployment.yaml"), CTX).orElseThrow();
    assertThat(r.fields().get("pw").toString()).isEqualTo("[\"********\"]");
    assertThat(Records.toJsonLine(r)).doesNotContain("s3cr3t-db", "pgpass-42");
  }

  @Test
  void objectsOfOtherTypesOrVersionsYieldNoRecord() {
    CompiledProfile p = profile(DEPLOYMENTS);
    ObjectNode other = resource("deployment.yaml").deepCopy();
    other.put("apiVersion", "apps/v1beta2");
    assertThat(p.extract(other, CTX)).isEmpty();
    assertThat(p.extract(TestObjects.yaml("{apiVersion: v1, kind: Service, metadata: {name: x}}"), CTX)).isEmpty();
    assertThat(p.extract(TestObjects.yaml("{metadata: {name: x}}"), CTX)).isEmpty();
    assertThat(p.matches(new GroupVersionKind("apps", "v1", "Deployment"))).isTrue();
    assertThat(p.resources()).containsExactly(new GroupVersionKind("apps", "v1", "Deployment"));
  }

  @Test
  void theInputObjectIsNeverModified() {
    JsonNode d = resource("deployment.yaml");
    JsonNode before = d.deepCopy();
    Record r = profile(DEPLOYMENTS).extract(d, CTX).orElseThrow();
    assertThat(d).isEqualTo(before);
    ((ObjectNode) r.fields().get("strategy")).put("mutated", true);
    assertThat(d).isEqualTo(before);
  }

  @Test
  void secretValuesNeverLeaveEvenWhenTheProfileSetsIncludeSecretData() {
    JsonNode secret = TestObjects.yaml("""
        apiVersion: v1
        kind: Secret
        metadata: {name: db, namespace: shop}
        type: Opaque
        data: {username: YWRtaW4=, password: aHVudGVyMg==}
        stringData: {extra: plain-text-value}
        """);
    Record closed = profile("resources: [{version: v1, kind: Secret, fields: [{name: all, path: '..*'}, {name: type, path: .type}]}]")
        .extract(secret, CTX).orElseThrow();
    assertThat(Records.toJsonLine(closed)).doesNotContain("YWRtaW4=", "aHVudGVyMg==", "plain-text-value");
    assertThat(closed.fields().get("type").textValue()).isEqualTo("Opaque");

    Record open = profile("resources: [{version: v1, kind: Secret, includeSecretData: true, fields: [{name: data, path: .data}]}]")
        .extract(secret, CTX).orElseThrow();
    assertThat(open.fields().get("data").toString()).isEqualTo("{\"username\":{\"length\":5},\"password\":{\"length\":7}}");
    assertThat(Records.toJsonLine(open)).doesNotContain("YWRtaW4=", "aHVudGVyMg==", "admin", "hunter2", "plain-text-value");
  }

  @Test
  void profileScrubKeysMaskMatchingKeysAtAnyDepth() {
    JsonNode cm = TestObjects.yaml("""
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: cfg, namespace: shop}
        data: {dsnPrimary: "host=db", nested: "x", plain: "ok"}
        """);
    Record r = profile("resources: [{version: v1, kind: ConfigMap, scrubKeys: ['dsn*', 'NESTED'], fields: [{name: d, path: .data}]}]")
        .extract(cm, CTX).orElseThrow();
    assertThat(r.fields().get("d").toString())
        .isEqualTo("{\"dsnPrimary\":\"********\",\"nested\":\"********\",\"plain\":\"ok\"}");
  }

  @Test
  void contentHashIgnoresVolatileFieldsAndChangesWithContent() {
    CompiledProfile p = profile(DEPLOYMENTS);
    ObjectNode d = resource("deployment.yaml").deepCopy();
    String h1 = p.extract(d, CTX).orElseThrow().contentHash();
    assertThat(h1).matches("[0-9a-f]{64}");
    ObjectNode meta = (ObjectNode) d.get("metadata");
    meta.put("resourceVersion", "99999");
    meta.put("uid", "other");
    ((ObjectNode) d.get("status")).put("observedGeneration", 8); // not extracted
    String h2 = p.extract(d, new RecordContext("c2", "x/y", java.time.Instant.EPOCH)).orElseThrow().contentHash();
    assertThat(h2).isEqualTo(h1);
    ((ObjectNode) d.get("spec")).put("replicas", 4);
    assertThat(p.extract(d, CTX).orElseThrow().contentHash()).isNotEqualTo(h1);
  }

  @Test
  void contentHashDoesNotDependOnKeyOrder() {
    CompiledProfile p = profile("resources: [{version: v1, kind: ConfigMap, fields: [{name: d, path: .data}]}]");
    JsonNode a = TestObjects.yaml("{apiVersion: v1, kind: ConfigMap, metadata: {name: a}, data: {x: '1', y: '2'}}");
    JsonNode b = TestObjects.yaml("{kind: ConfigMap, data: {y: '2', x: '1'}, apiVersion: v1, metadata: {name: a}}");
    assertThat(p.extract(a, CTX).orElseThrow().contentHash()).isEqualTo(p.extract(b, CTX).orElseThrow().contentHash());
  }

  @Test
  void objectsWithoutANameAreRejectedWithoutEchoingContent() {
    assertThatThrownBy(() -> profile(DEPLOYMENTS).extract(
            TestObjects.yaml("{apiVersion: apps/v1, kind: Deployment, metadata: {generateName: hunter2-}}"), CTX))
        .isInstanceOf(ExtractionException.class)
        .hasMessage("apps/v1/Deployment object without metadata.name cannot be extracted");
  }

  @Test
  void clusterScopedObjectsHaveANullNamespace() {
    Record r = profile("resources: [{version: v1, kind: Namespace}]")
        .extract(TestObjects.yaml("{apiVersion: v1, kind: Namespace, metadata: {name: shop}}"), CTX).orElseThrow();
    assertThat(r.namespace()).isNull();
    assertThat(r.key()).isEqualTo("/Namespace//shop");
    assertThat(r.fields()).isEmpty();
  }

  @Test
  void keepPathsListStaticPrefixesIdentityAndAllowListedMetadata() {
    CompiledProfile p = profile(DEPLOYMENTS);
    assertThat(p.keepPaths(new GroupVersionKind("apps", "v1", "Deployment"))).containsExactlyInAnyOrder(
        List.of("metadata", "name"), List.of("metadata", "namespace"), List.of("metadata", "uid"),
        List.of("metadata", "resourceVersion"), List.of("metadata", "labels"), List.of("metadata", "annotations"),
        List.of("spec", "replicas"), List.of("spec", "template", "spec", "containers"),
        List.of("status", "conditions"), List.of("spec", "paused"), List.of("spec", "strategy"));
    assertThat(p.keepPaths(new GroupVersionKind("", "v1", "Pod"))).isEmpty();
    CompiledProfile rec = profile("resources: [{version: v1, kind: Pod, fields: [{name: n, path: '..name'}]}]");
    assertThat(rec.keepPaths(new GroupVersionKind("", "v1", "Pod"))).as("whole object").isNull();
    assertThat(p.keepPaths(new GroupVersionKind("apps", "v1", "Deployment"))).allSatisfy(k -> assertThat(k).isNotEmpty());
  }

  @Test
  void extractionFromTheProjectionOfKeepPathsEqualsExtractionFromTheWholeObject() {
    CompiledProfile p = profile(DEPLOYMENTS);
    JsonNode full = resource("deployment.yaml");
    ObjectNode projected = Records.mapper().createObjectNode();
    projected.put("apiVersion", "apps/v1").put("kind", "Deployment");
    for (List<String> path : p.keepPaths(new GroupVersionKind("apps", "v1", "Deployment"))) {
      JsonNode src = full;
      ObjectNode dst = projected;
      for (int i = 0; i < path.size(); i++) {
        src = src.path(path.get(i));
        if (src.isMissingNode()) {
          break;
        }
        if (i == path.size() - 1) {
          dst.set(path.get(i), src);
        } else {
          dst = dst.has(path.get(i)) ? (ObjectNode) dst.get(path.get(i)) : dst.putObject(path.get(i));
        }
      }
    }
    Record a = p.extract(full, CTX).orElseThrow();
    Record b = p.extract(projected, CTX).orElseThrow();
    assertThat(b).isEqualTo(a);
  }
}
