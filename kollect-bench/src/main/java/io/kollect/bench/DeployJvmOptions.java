package io.kollect.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.Quantity;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The JVM options the shipped Deployment gives the operator: {@code JAVA_TOOL_OPTIONS} of its
 * first container in {@code deploy/manager/deployment.yaml}, and the JVM options that stand in for
 * its container limits. Read from the file rather than copied here, so the benchmark follows
 * whatever the Deployment ships.
 */
final class DeployJvmOptions {

  private DeployJvmOptions() {}

  static List<String> read(Path deploymentYaml) throws IOException {
    return parse(new ObjectMapper(new YAMLFactory()).readTree(deploymentYaml.toFile()));
  }

  /**
   * What the JVM would see of the container's limits, as options for a JVM that runs without a
   * container runtime: {@code -XX:MaxRAM} for {@code limits.memory} and {@code
   * -XX:ActiveProcessorCount} for {@code limits.cpu} (rounded up, as the JVM rounds a CPU quota).
   * Both matter: the heap is a share of the memory, and the JVM picks its collector from both (a
   * JVM with one processor or less than 1792 MiB picks Serial, otherwise G1), so a benchmark that
   * emulates only the memory limit runs another collector than the container does.
   */
  static List<String> containerLimits(Path deploymentYaml) throws IOException {
    return containerLimits(new ObjectMapper(new YAMLFactory()).readTree(deploymentYaml.toFile()));
  }

  static List<String> containerLimits(JsonNode deployment) {
    Limits limits = limits(deployment);
    List<String> options = new ArrayList<>();
    if (limits.memoryBytes() != null) {
      options.add("-XX:MaxRAM=" + limits.memoryBytes());
    }
    if (limits.cpus() != null) {
      options.add("-XX:ActiveProcessorCount="
          + Math.max(1, BigDecimal.valueOf(limits.cpus()).setScale(0, RoundingMode.CEILING).intValueExact()));
    }
    return options;
  }

  /** The container's {@code resources.limits}: processors and bytes, each null when not set. */
  record Limits(Double cpus, Long memoryBytes) {}

  static Limits limits(Path deploymentYaml) throws IOException {
    return limits(new ObjectMapper(new YAMLFactory()).readTree(deploymentYaml.toFile()));
  }

  static Limits limits(JsonNode deployment) {
    JsonNode limits = firstContainer(deployment).path("resources").path("limits");
    Long bytes = limits.hasNonNull("memory")
        ? Quantity.getAmountInBytes(new Quantity(limits.get("memory").asText()))
            .setScale(0, RoundingMode.DOWN).longValueExact()
        : null;
    Double cpus = limits.hasNonNull("cpu")
        ? Quantity.getAmountInBytes(new Quantity(limits.get("cpu").asText())).doubleValue()
        : null;
    return new Limits(cpus, bytes);
  }

  private static JsonNode firstContainer(JsonNode deployment) {
    return deployment.path("spec").path("template").path("spec").path("containers").path(0);
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
