package io.kollect.extract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProfileCompilerTest {

  private static List<String> problems(String yaml) {
    try {
      TestObjects.profile(yaml);
    } catch (ProfileValidationException e) {
      return e.problems().stream().map(Object::toString).toList();
    }
    throw new AssertionError("profile was accepted");
  }

  @Test
  void reportsEveryProblemAtOnceWithResourceFieldAndColumn() {
    List<String> problems = problems("""
        resources:
        - group: apps
          version: v1
          kind: Deployment
          fields:
          - {name: image, path: ".spec.containers[0].image"}
          - {name: image, path: ".spec.replicas"}
          - {name: ready, path: "{.status.conditions]}"}
          - {name: empty, path: ""}
          - {name: n, path: ".spec.containers", reduce: average}
          - {path: .spec.x}
        - kind: Service
        """);
    assertThat(problems).containsExactly(
        "resources[0].fields[1] \"image\": duplicate field name (also fields[0])",
        "resources[0].fields[2] \"ready\": unexpected ']' at column 20",
        "resources[0].fields[3] \"empty\": path is empty",
        "resources[0].fields[4] \"n\": unknown reducer \"average\" (known: count, sum, min, max, first, join)",
        "resources[0].fields[5]: name is required",
        "resources[1]: version is required");
  }

  @Test
  void pathErrorsPointAtTheColumnInTheOriginalString() {
    assertThat(problems("resources: [{version: v1, kind: Pod, fields: [{name: a, path: \"{.spec.containers[?(@.name==\\\"x)].name}\"}]}]"))
        .singleElement().asString().contains("unterminated string at column");
    assertThat(problems("resources: [{version: v1, kind: Pod, fields: [{name: a, path: \"{.a}{.b}\"}]}]"))
        .singleElement().asString().endsWith("only one {...} expression is supported, found another block at column 5");
    TestObjects.profile("resources: [{version: v1, kind: Pod, fields: [{name: a, path: \".spec.containers[1:2:3]\"}]}]");
    assertThat(problems("resources: [{version: v1, kind: Pod, fields: [{name: a, path: \"{range .items[*]}\"}]}]"))
        .singleElement().asString().contains("{range}/{end} templates are not supported");
    assertThat(problems("resources: [{version: v1, kind: Pod, fields: [{name: a, path: \".spec.containers[abc]\"}]}]"))
        .singleElement().asString().endsWith("invalid index 'abc' at column 18");
    TestObjects.profile("resources: [{version: v1, kind: Pod, fields: [{name: a, path: \".metadata.labels['a','b']\"}]}]");
    assertThat(problems("resources: [{version: v1, kind: Pod, fields: [{name: a, path: \".spec.x[?(@.a=~'b')]\"}]}]"))
        .singleElement().asString().endsWith("unrecognized filter operator =~ at column 14");
    assertThat(problems("resources: [{version: v1, kind: Pod, fields: [{name: a, path: \".spec.x[?(@.a=='b' && @.c=='d')]\"}]}]"))
        .singleElement().asString()
        .endsWith("unrecognized filter operator && (the kubectl dialect has no logical operators) at column 20");
  }

  @Test
  void duplicateResourcesAndMisplacedOptInsAreReported() {
    List<String> problems = problems("""
        resources:
        - {version: v1, kind: Secret, fields: [{name: pw, path: .data.password}, {name: r, path: .release.name}]}
        - {version: v1, kind: Secret}
        - {group: apps, version: v1, kind: Deployment, helmRelease: true, labels: [""]}
        """);
    assertThat(problems).containsExactly(
        "resources[0].fields[1] \"r\": paths under release need helmRelease: true on the resource",
        "resources[1]: duplicate resource v1/Secret (also resources[0])",
        "resources[2]: helmRelease applies only to v1 Secret and v1 ConfigMap (Helm's storage drivers)",
        "resources[2].labels[0]: must not be empty");
  }

  @Test
  void anEmptyProfileIsInvalid() {
    assertThatThrownBy(() -> ProfileCompiler.compile("p", new ProfileSpec(List.of())))
        .hasMessage("profile p is invalid: resources: at least one resource is required");
  }

  @Test
  void reduceAndListCannotBeCombined() {
    assertThat(problems("resources: [{version: v1, kind: Pod, fields: [{name: a, path: .spec.containers, reduce: count, list: true}]}]"))
        .containsExactly("resources[0].fields[0] \"a\": reduce and list cannot be combined");
  }

  @Test
  void aPathBelowAScrubbedKeyIsReportedAsNeverHavingAValue() {
    CompiledProfile p = TestObjects.profile("""
        resources:
        - group: example.com
          version: v1
          kind: Backend
          scrubKeys: ["conn*"]
          fields:
          - {name: user, path: .spec.auth.username}
          - {name: host, path: '.spec.connection.hosts[0]'}
          - {name: token, path: .spec.token}
          - {name: replicas, path: .spec.replicas}
        - {version: v1, kind: Secret, fields: [{name: size, path: .data.password}]}
        """);

    assertThat(p.warnings()).containsExactly(
        "resources[0].fields \"user\": path .spec.auth.username can never have a value: its ancestor "
            + "key \"auth\" is scrubbed, so everything below it is masked",
        "resources[0].fields \"host\": path .spec.connection.hosts[0] can never have a value: its "
            + "ancestor key \"connection\" is scrubbed, so everything below it is masked");
    // the scrubbed key itself (token) is masked, not lost; Secret data is a view, never masked whole
    JsonNode backend = TestObjects.yaml("""
        {"apiVersion": "example.com/v1", "kind": "Backend", "metadata": {"name": "b"},
         "spec": {"auth": {"username": "admin"}, "token": "t0k3n", "replicas": 2}}""");
    assertThat(p.extract(backend, TestObjects.CTX).orElseThrow().fields()).doesNotContainKey("user")
        .containsKeys("token", "replicas");
  }
}
