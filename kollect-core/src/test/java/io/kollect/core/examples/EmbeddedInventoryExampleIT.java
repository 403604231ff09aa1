package io.kollect.core.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kollect.core.KollectEngine;
import io.kollect.core.TestCluster;
import io.kollect.export.InventoryQuery;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import io.kollect.extract.Records;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Runs the documented embedding example, exactly as docs/examples/embedding.md shows it. */
class EmbeddedInventoryExampleIT {

  static TestCluster cluster;

  @BeforeAll
  static void startCluster() {
    cluster = TestCluster.start();
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static List<Record> lines(ByteArrayOutputStream out) {
    synchronized (out) {
      return Arrays.stream(out.toString(StandardCharsets.UTF_8).split("\n"))
          .filter(l -> !l.isBlank()).map(Records::fromJson).toList();
    }
  }

  @Test
  void theExampleWritesOneLinePerChangeOfTheShopDeployments() {
    cluster.namespace("shop");
    cluster.namespace("elsewhere");
    cluster.deployment("shop", "cart", "cart:1.0", 2,
        Map.of("app.kubernetes.io/name", "cart", "tier", "backend"));
    cluster.deployment("elsewhere", "ignored", "x:1", 1);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    try (KollectEngine engine = EmbeddedInventoryExample.start(cluster.client(), out,
        new PrintStream(log, true, StandardCharsets.UTF_8))) {
      await().atMost(Duration.ofSeconds(30)).until(() -> lines(out).size() == 1);
      Record cart = lines(out).get(0);
      assertThat(cart.op()).isEqualTo(Op.UPSERT);
      assertThat(cart.target()).isEqualTo("example/shop-deployments");
      assertThat(cart.cluster()).isEqualTo("example");
      assertThat(cart.name()).isEqualTo("cart");
      assertThat(cart.fields().get("replicas").asInt()).isEqualTo(2);
      assertThat(cart.fields().get("images").toString()).contains("cart:1.0");
      assertThat(cart.labels()).containsOnlyKeys("app.kubernetes.io/name");
      // the in-memory inventory holds the record as extracted; the sink's copy also carries the
      // delivery sequence the exporter gave it
      assertThat(cart.sequence()).isNotNull();
      assertThat(engine.inventory().query(InventoryQuery.all())).singleElement()
          .usingRecursiveComparison().ignoringFields("sequence").isEqualTo(cart);
      await().atMost(Duration.ofSeconds(10))
          .until(() -> log.toString(StandardCharsets.UTF_8).contains("ready=true"));

      cluster.client().apps().deployments().inNamespace("shop").withName("cart").delete();
      await().atMost(Duration.ofSeconds(30)).until(() -> lines(out).size() == 2);
      assertThat(lines(out).get(1).op()).isEqualTo(Op.DELETE);
      assertThat(engine.awaitIdle(Duration.ofSeconds(30))).isTrue();
      assertThat(lines(out)).hasSize(2);
    }
  }

  @Test
  void theDocumentShowsTheExampleVerbatim() throws IOException {
    String source = Files.readString(
        Path.of("src/test/java/io/kollect/core/examples/EmbeddedInventoryExample.java"));
    String example = source.substring(source.indexOf("// example:begin\n") + 17,
        source.indexOf("// example:end"));
    String doc = Files.readString(Path.of("../docs/examples/embedding.md"));
    assertThat(doc).contains(example);
  }
}
