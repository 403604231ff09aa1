package io.kollect.release;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;

/**
 * The operator image is built only by the release workflow (Jib cannot pull its base image here),
 * so what can be checked here is checked: the image runs as the user, with the JVM options, ports
 * and command that deploy/ expects, from the base image named once in the parent pom.
 */
class ImageConfigurationTest {

  private final Path root = Poms.root();
  private final Element operator = Poms.read(root.resolve("kollect-operator/pom.xml"));
  private final Element jib = Poms.pluginConfiguration(operator, "jib-maven-plugin");
  private final Element container = Poms.at(jib, "container").orElseThrow();

  @Test
  void baseImageIsNamedOnceInTheParentPom() {
    assertThat(Poms.text(jib, "from", "image")).contains("${kollect.image.base}");
    assertThat(Poms.text(Poms.read(root.resolve("pom.xml")), "properties", "kollect.image.base"))
        .hasValueSatisfying(base -> assertThat(base).startsWith("eclipse-temurin:17"));
    // one image definition: the Jib configuration, no Dockerfile beside it
    assertThat(root.resolve("Dockerfile")).doesNotExist();
  }

  @Test
  void imageRunsAsTheNonRootUserOfTheDeployments() throws IOException {
    for (JsonNode pod : podSpecs()) {
      JsonNode ctx = pod.path("securityContext");
      assertThat(Poms.text(container, "user"))
          .contains(ctx.path("runAsUser").asText() + ":" + ctx.path("runAsGroup").asText());
      assertThat(ctx.path("runAsNonRoot").asBoolean()).isTrue();
    }
  }

  @Test
  void imageCarriesTheJvmOptionsOfTheDeployments() throws IOException {
    String image = Poms.text(container, "environment", "JAVA_TOOL_OPTIONS").orElseThrow();
    for (JsonNode pod : podSpecs()) {
      String deployed = null;
      for (JsonNode env : pod.path("containers").get(0).path("env")) {
        if (env.path("name").asText().equals("JAVA_TOOL_OPTIONS")) {
          deployed = env.path("value").asText();
        }
      }
      assertThat(image).isEqualTo(deployed);
    }
  }

  @Test
  void imageOpensThePortsAndRunsTheCommandOfTheDeployment() throws IOException {
    JsonNode c = podSpecs().get(0).path("containers").get(0);
    List<String> ports = new ArrayList<>();
    c.path("ports").forEach(p -> ports.add(p.path("containerPort").asText()));
    List<String> args = new ArrayList<>();
    c.path("args").forEach(a -> args.add(a.asText()));
    List<String> imagePorts = Poms.children(Poms.at(container, "ports").orElseThrow(), "port")
        .stream().map(e -> e.getTextContent().trim()).toList();
    List<String> imageArgs = Poms.children(Poms.at(container, "args").orElseThrow(), "arg")
        .stream().map(e -> e.getTextContent().trim()).toList();

    assertThat(imagePorts).containsExactlyInAnyOrderElementsOf(ports);
    // the Deployment adds bind addresses to the image's default command, it does not change it
    assertThat(args).startsWith(imageArgs.toArray(String[]::new));
  }

  @Test
  void imageAndRunnableJarStartTheSameMainClass() throws Exception {
    String mainClass = Poms.text(operator, "properties", "kollect.main.class").orElseThrow();

    assertThat(Poms.text(container, "mainClass")).contains("${kollect.main.class}");
    assertThat(Files.readString(root.resolve("kollect-operator/pom.xml")))
        .contains("<mainClass>${kollect.main.class}</mainClass>");
    assertThat(Class.forName(mainClass).getMethod("main", String[].class)).isNotNull();
  }

  /** The pod specs of the shipped Deployment and of the sharded StatefulSet. */
  private List<JsonNode> podSpecs() throws IOException {
    YAMLMapper yaml = new YAMLMapper();
    List<JsonNode> out = new ArrayList<>();
    for (String file : List.of("deploy/manager/deployment.yaml", "deploy/sharded/statefulset.yaml")) {
      out.add(yaml.readTree(root.resolve(file).toFile()).path("spec").path("template").path("spec"));
    }
    return out;
  }
}
