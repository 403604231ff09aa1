package io.kollect.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class DeployJvmOptionsTest {

  @Test
  void readsJavaToolOptionsOfTheShippedDeployment() throws Exception {
    // The module runs its tests from kollect-bench/, so the shipped manifest is one level up.
    assertThat(DeployJvmOptions.read(Path.of("../deploy/manager/deployment.yaml")))
        .isNotEmpty()
        .allMatch(o -> o.startsWith("-"));
  }

  @Test
  void splitsTheValueOnWhitespace() throws Exception {
    var yaml = container("""
                  env:
                    - {name: OTHER, value: x}
                    - {name: JAVA_TOOL_OPTIONS, value: " -XX:MaxRAMPercentage=70  -XX:+ExitOnOutOfMemoryError "}
        """);
    assertThat(DeployJvmOptions.parse(yaml)).containsExactly("-XX:MaxRAMPercentage=70", "-XX:+ExitOnOutOfMemoryError");
  }

  @Test
  void theShippedContainerLimitsBecomeMaxRamAndAProcessorCount() throws Exception {
    assertThat(DeployJvmOptions.containerLimits(Path.of("../deploy/manager/deployment.yaml")))
        .containsExactly("-XX:MaxRAM=536870912", "-XX:ActiveProcessorCount=1");
  }

  @Test
  void aFractionalCpuLimitRoundsUpAndAMissingLimitAddsNoOption() throws Exception {
    var yaml = container("""
                  resources:
                    limits: {cpu: 1500m}
        """);
    assertThat(DeployJvmOptions.containerLimits(yaml)).containsExactly("-XX:ActiveProcessorCount=2");
  }

  @Test
  void theShippedLimitsAreOneProcessorAnd512MiB() throws Exception {
    assertThat(DeployJvmOptions.limits(Path.of("../deploy/manager/deployment.yaml")))
        .isEqualTo(new DeployJvmOptions.Limits(1.0, 536_870_912L));
  }

  @Test
  void aMissingLimitIsNull() throws Exception {
    assertThat(DeployJvmOptions.limits(container("""
                  resources:
                    limits: {cpu: 250m}
        """))).isEqualTo(new DeployJvmOptions.Limits(0.25, null));
  }

  /** A Deployment whose one container {@code kollect} has the YAML lines given (indented by 18). */
  private static com.fasterxml.jackson.databind.JsonNode container(String lines) throws Exception {
    return new com.fasterxml.jackson.databind.ObjectMapper(
        new com.fasterxml.jackson.dataformat.yaml.YAMLFactory()).readTree("""
        spec:
          template:
            spec:
              containers:
                - name: kollect
        """ + lines);
  }
}
