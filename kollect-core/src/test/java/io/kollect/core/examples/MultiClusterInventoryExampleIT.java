package io.kollect.core.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.core.KollectEngine;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import io.kollect.extract.Records;
import io.kollect.testing.TestApiServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Runs the documented multi-cluster example on two API servers, as docs/examples shows it. */
class MultiClusterInventoryExampleIT {

  static TestApiServer east;
  static TestApiServer west;

  @BeforeAll
  static void startServers() {
    east = TestApiServer.builder().reused().start();
    west = TestApiServer.builder().reused().start();
  }

  @AfterAll
  static void stopServers() {
    if (east != null) {
      east.close();
    }
    if (west != null) {
      west.close();
    }
  }

  private static void cart(TestApiServer server, int replicas) {
    server.namespace("shop");
    server.admin().apps().deployments().inNamespace("shop").resource(new DeploymentBuilder()
        .withNewMetadata().withName("cart").endMetadata()
        .withNewSpec().withReplicas(replicas)
        .withNewSelector().addToMatchLabels("app", "cart").endSelector()
        .withNewTemplate().withNewMetadata().addToLabels("app", "cart").endMetadata()
        .withNewSpec().addNewContainer().withName("main").withImage("cart:1").endContainer()
        .endSpec().endTemplate().endSpec().build()).create();
  }

  private static List<Record> lines(ByteArrayOutputStream out) {
    synchronized (out) {
      return Arrays.stream(out.toString(StandardCharsets.UTF_8).split("\n"))
          .filter(l -> !l.isBlank()).map(Records::fromJson).toList();
    }
  }

  @Test
  void theExampleWritesTheShopDeploymentsOfBothClustersEachNamingItsCluster() {
    cart(east, 2);
    cart(west, 5);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    try (KubernetesClient eastClient = east.newAdminClient();
        KubernetesClient westClient = west.newAdminClient();
        KollectEngine engine = MultiClusterInventoryExample.start(east.admin(), eastClient,
            westClient, out, new PrintStream(log, true, StandardCharsets.UTF_8))) {
      await().atMost(Duration.ofSeconds(60)).until(() -> lines(out).size() == 2);
      assertThat(lines(out)).allSatisfy(r -> {
        assertThat(r.op()).isEqualTo(Op.UPSERT);
        assertThat(r.target()).isEqualTo("fleet/shop-deployments");
        assertThat(r.name()).isEqualTo("cart");
      });
      assertThat(lines(out)).extracting(r -> r.cluster() + "=" + r.fields().get("replicas"))
          .containsExactlyInAnyOrder("east=2", "west=5");
      await().atMost(Duration.ofSeconds(30)).until(() -> {
        String text = log.toString(StandardCharsets.UTF_8);
        return text.contains("cluster=east ready=true objects=1")
            && text.contains("cluster=west ready=true objects=1")
            && text.contains("cluster west CONNECTED v1.20");
      });
      assertThat(engine.awaitIdle(Duration.ofSeconds(30))).isTrue();
      assertThat(lines(out)).hasSize(2);
    }
  }

  @Test
  void theDocumentShowsTheExampleVerbatim() throws IOException {
    String source = Files.readString(Path.of(
        "src/test/java/io/kollect/core/examples/MultiClusterInventoryExample.java"));
    String example = source.substring(source.indexOf("// example:begin\n") + 17,
        source.indexOf("// example:end"));
    String doc = Files.readString(Path.of("../docs/examples/embedding.md"));
    assertThat(doc).contains(example);
  }
}
