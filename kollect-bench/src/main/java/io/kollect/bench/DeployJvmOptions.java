package io.kollect.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * The JVM options the shipped Deployment gives the operator: {@code JAVA_TOOL_OPTIONS} of its
 * first container in {@code deploy/manager/deployment.yaml}. Read from the file rather than copied
 * here, so the benchmark follows whatever the Deployment ships.
 */
final class DeployJvmOptions {

  private DeployJvmOptions() {}

  static List<String> read(Path deploymentYaml) throws IOException {
    return parse(new ObjectMapper(new YAMLFactory()).readTree(deploymentYaml.toFile()));
  }

  static List<String> parse(JsonNode deployment) {
    for (JsonNode container : deployment.path("spec").path("template").path("spec").path("containers")) {
      for (JsonNode env : container.path("env")) {
        if ("JAVA_TOOL_OPTIONS".equals(env.path("name").asText())) {
          return Arrays.stream(env.path("value").asText().trim().split("\\s+"))
              .filter(s -> !s.isEmpty()).toList();
        }
      }
    }
    return List.of();
  }
}
