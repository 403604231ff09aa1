package io.kollect.operator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kollect.operator.cli.KollectCommand;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kollect demo}, the README's first command, end to end with the bundled samples. */
class DemoCommandIT {

  @TempDir Path tmp;

  @Test
  void theDemoRunsTheSampleCatalogPrintsRecordsAndTheSummaryAndStopsItsApiServer() throws Exception {
    LineCapture out = new LineCapture();
    LineCapture err = new LineCapture();
    int exit = KollectCommand.execute(out.printStream(), err.printStream(), "demo", "--duration", "3s",
        "--dir", tmp.toString(), "--inventory-address", "127.0.0.1:0");
    assertThat(exit).as(err.text()).isZero();

    ObjectMapper json = new ObjectMapper();
    Set<String> targets = out.lines().stream().map(l -> {
      try {
        return json.readTree(l);
      } catch (Exception e) {
        throw new AssertionError("stdout is not pure JSON lines: " + l, e);
      }
    }).map(r -> r.get("target").asText()).collect(Collectors.toSet());
    // Every bundled sample's target exported its records.
    try (var samples = Files.list(Path.of("target/classes/kollect/samples"))) {
      Set<String> expected = samples.filter(Files::isDirectory)
          .map(p -> "kollect-demo/" + p.getFileName()).collect(Collectors.toSet());
      assertThat(expected).isNotEmpty();
      assertThat(targets).containsExactlyInAnyOrderElementsOf(expected);
    }
    assertThat(out.lines()).allSatisfy(l -> assertThat(l).contains("\"op\":\"UPSERT\""));

    String messages = err.text();
    assertThat(messages).contains("TARGET", "PROFILE", "READY", "OBJECTS", "LAST EXPORT");
    assertThat(messages).contains("kollect-demo/deployment-inventory  deployment-inventory  True");
    assertThat(messages).contains("export KUBECONFIG=" + tmp.resolve("kubeconfig").toAbsolutePath());
    assertThat(messages).contains("Authorization: Bearer");
    assertThat(tmp.resolve("inventory-token")).isNotEmptyFile();

    // The embedded API server is gone once the demo returns.
    String kubeconfig = Files.readString(tmp.resolve("kubeconfig"));
    Config config = Config.fromKubeconfig(kubeconfig);
    config.setRequestRetryBackoffLimit(0);
    config.setConnectionTimeout(2000);
    try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> client.namespaces().list())
          .isInstanceOf(io.fabric8.kubernetes.client.KubernetesClientException.class);
    }
  }
}
