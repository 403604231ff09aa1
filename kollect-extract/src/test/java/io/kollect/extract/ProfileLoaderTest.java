package io.kollect.extract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProfileLoaderTest {

  @Test
  void wholeKollectProfileAndBareSpecLoadToTheSameSpec() {
    String spec = """
        resources:
        - group: apps
          version: v1
          kind: Deployment
          fields:
          - name: replicas
            path: .spec.replicas
            default: 1
          labels: ["app.kubernetes.io/*"]
        """;
    String whole = """
        apiVersion: kollect.io/v1alpha1
        kind: KollectProfile
        metadata:
          name: deployments
        spec:
        """ + spec.indent(2);
    ProfileLoader.NamedSpec a = ProfileLoader.parseNamed(spec, "dir/bare.yaml");
    ProfileLoader.NamedSpec b = ProfileLoader.parseNamed(whole, "whole.yaml");
    assertThat(a.spec()).isEqualTo(b.spec());
    assertThat(a.name()).isEqualTo("bare");
    assertThat(b.name()).isEqualTo("deployments");
    FieldRule f = b.spec().resources().get(0).fields().get(0);
    assertThat(f.defaultValue().intValue()).isEqualTo(1);
    assertThat(b.spec().resources().get(0).gvk()).isEqualTo(new GroupVersionKind("apps", "v1", "Deployment"));
  }

  @Test
  void jsonProfilesLoadToo() {
    ProfileSpec spec = ProfileLoader.parse(
        "{\"resources\":[{\"version\":\"v1\",\"kind\":\"Service\",\"fields\":[{\"name\":\"type\",\"path\":\"{.spec.type}\"}]}]}",
        "p.json");
    assertThat(spec.resources().get(0).gvk().apiVersion()).isEqualTo("v1");
  }

  @Test
  void everyUnknownKeyIsReportedWithItsLocation() {
    String yaml = """
        resources:
        - version: v1
          kind: Service
          colour: blue
          fields:
          - name: type
            path: .spec.type
          - name: ports
            paht: .spec.ports
        """;
    assertThatThrownBy(() -> ProfileLoader.parse(yaml, "p.yaml"))
        .isInstanceOf(ProfileValidationException.class)
        .satisfies(e -> {
          ProfileValidationException pve = (ProfileValidationException) e;
          assertThat(pve.problems()).extracting(Object::toString).containsExactlyInAnyOrder(
              "resources[0]: unknown key \"colour\"",
              "resources[0].fields[1] \"ports\": unknown key \"paht\"");
          assertThat(e.getMessage()).startsWith("profile p.yaml is invalid: ");
        });
  }

  @Test
  void unknownKeysInTheWrapperAndAWrongKindAreReported() {
    String yaml = """
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metdata: {name: x}
        spec:
          resources: []
        """;
    assertThatThrownBy(() -> ProfileLoader.parse(yaml, "p.yaml"))
        .hasMessageContaining("unknown key \"metdata\"")
        .hasMessageContaining("kind: must be KollectProfile");
  }

  @Test
  void wrongValueTypesAreLocatedWithoutQuotingTheValue() {
    String yaml = """
        resources:
        - version: v1
          kind: Secret
          includeSecretData: "definitely-hunter2"
        """;
    assertThatThrownBy(() -> ProfileLoader.parse(yaml, "p.yaml"))
        .hasMessageContaining("resources[0].includeSecretData: expected true or false")
        .hasMessageNotContaining("hunter2");
  }

  @Test
  void yamlSyntaxErrorsNameLineAndColumnButNotTheContent() {
    String yaml = """
        resources:
        - version: v1
          kind: Service
          fields: [ {name: a, path: .spec.type, default: hunter2-secret
        """;
    assertThatThrownBy(() -> ProfileLoader.parse(yaml, "p.yaml"))
        .isInstanceOf(ProfileValidationException.class)
        .hasMessageContaining("line ")
        .hasMessageContaining("column ")
        .hasMessageNotContaining("hunter2");
  }

  @Test
  void missingFilesAreReportedByName(@TempDir Path dir) {
    assertThatThrownBy(() -> ProfileLoader.load(dir.resolve("nope.yaml")))
        .isInstanceOf(ProfileValidationException.class)
        .hasMessageContaining("nope.yaml")
        .hasMessageContaining("file not found");
  }

  @Test
  void compilingAFileReportsReadingAndPathProblemsTogether(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("p.yaml");
    Files.writeString(f, """
        resources:
        - version: v1
          kind: Pod
          fields:
          - {name: ready, path: "{.status.conditions]}"}
          - {name: x, paht: .a}
        """);
    assertThatThrownBy(() -> ProfileCompiler.compile(f))
        .isInstanceOf(ProfileValidationException.class)
        .satisfies(e -> assertThat(((ProfileValidationException) e).problems()).extracting(Object::toString)
            .containsExactly(
                "resources[0].fields[1] \"x\": unknown key \"paht\"",
                "resources[0].fields[0] \"ready\": unexpected ']' at column 20",
                "resources[0].fields[1] \"x\": path is empty"))
        .hasMessageStartingWith("profile " + f + " is invalid: ");
  }

  @Test
  void loadsFromFilesUnderTheirMetadataName(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("x.yaml");
    Files.writeString(f, "kind: KollectProfile\nmetadata: {name: inv}\nspec:\n  resources: [{version: v1, kind: Pod}]\n");
    assertThat(ProfileCompiler.compile(f).name()).isEqualTo("inv");
    assertThat(ProfileLoader.load(f).resources()).hasSize(1);
  }

  @Test
  void anUnknownEscapeInADoubleQuotedPathIsNamedWithTheTwoWaysToWriteIt() {
    String yaml = """
        resources:
        - version: v1
          kind: Service
          fields:
          - {name: app, path: "{.metadata.labels.app\\.kubernetes\\.io/name}"}
        """;

    assertThatThrownBy(() -> ProfileLoader.parse(yaml, "p.yaml"))
        .isInstanceOf(ProfileValidationException.class)
        .hasMessageContaining("invalid YAML at line 5, column ")
        .hasMessageContaining(": unknown escape \\. in a double-quoted string; write the value in single "
            + "quotes ('{.metadata.labels.app\\.kubernetes\\.io/name}') or double the backslash (\"\\\\.\")");
  }
}
