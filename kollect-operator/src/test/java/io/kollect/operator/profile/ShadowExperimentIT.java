package io.kollect.operator.profile;

import static io.kollect.operator.profile.LifecycleFixture.BASELINE;
import static io.kollect.operator.profile.LifecycleFixture.CANDIDATE;
import static io.kollect.operator.profile.LifecycleFixture.revision;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.kollect.core.lifecycle.ProfileExperiments.StartRequest;
import io.kollect.extract.Records;
import io.kollect.operator.OperatorConfig;
import io.kollect.operator.ReconcileSettings;
import io.kollect.operator.TestOperator;
import io.kollect.operator.cli.KollectCommand;
import io.kollect.operator.cluster.TestCluster;
import io.kollect.operator.crd.ProfileExperimentStatus;
import io.kollect.operator.http.BindAddress;
import io.kollect.operator.http.InventoryAuth;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Shadow experiments on a real API server: the candidate is evaluated over the target's cached
 * objects and compared, nothing of it is delivered while it runs, promote delivers only the
 * records that differ, and stop delivers nothing at all.
 */
class ShadowExperimentIT {

  private static final Pattern SUMMARY = Pattern.compile("objects (\\d+), added (\\d+), removed "
      + "(\\d+), changed (\\d+), errors (\\d+), scrub hits (\\d+), bytes (\\d+) -> (\\d+)");
  private static TestCluster cluster;
  private static LifecycleFixture fx;
  private static TestOperator operator;

  @TempDir static Path tmp;

  @BeforeAll
  static void start() throws Exception {
    // A running shadow's diff reaches status on the reconcile after the shadow is in the engine,
    // one diff interval later (10 s when shipped); 1 s lets each test see it at once.
    cluster = TestCluster.start();
    fx = new LifecycleFixture(cluster);
    operator = TestOperator.on(cluster).configure(c -> OperatorConfig.builder().clusterName("it")
        .workers(1).resyncPeriod(Duration.ofHours(1)).metricsAddress(BindAddress.loopback(0))
        .inventoryAuth(InventoryAuth.none()).operatorNamespace(LifecycleFixture.OPERATOR_NS)
        .tenancy("default", Set.of(LifecycleFixture.OPERATOR_NS, "shadow", "stop"))
        .timings(ReconcileSettings.Timings.shipped()
            .withExperimentDiffInterval(Duration.ofSeconds(1))).build())
        .start();
  }

  @AfterAll
  static void stop() {
    if (operator != null) {
      operator.close();
    }
    if (fx != null) {
      fx.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private static ProfileExperimentStatus experiment(String profile) {
    return fx.status(profile).experiment();
  }

  /** {@code kollect diff} over the namespace's ConfigMaps as the API server has them. */
  private static String offlineDiff(String ns, String profile) throws Exception {
    Path manifests = Files.createDirectories(tmp.resolve(ns));
    for (ConfigMap cm : fx.client.configMaps().inNamespace(ns).list().getItems()) {
      cm.setApiVersion("v1");
      cm.setKind("ConfigMap");
      Files.writeString(manifests.resolve(cm.getMetadata().getName() + ".json"),
          fx.client.getKubernetesSerialization().asJson(cm));
    }
    Path base = tmp.resolve(ns + "-baseline.yaml");
    Path cand = tmp.resolve(ns + "-candidate.yaml");
    Files.writeString(base,
        "apiVersion: kollect.io/v1alpha1\nkind: KollectProfile\nmetadata: {name: "
        + profile + "}\nspec:\n" + LifecycleFixture.BASELINE_YAML.indent(2));
    Files.writeString(cand,
        "apiVersion: kollect.io/v1alpha1\nkind: KollectProfile\nmetadata: {name: "
        + profile + "}\nspec:\n" + LifecycleFixture.CANDIDATE_YAML.indent(2));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int code = KollectCommand.execute(new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), "diff",
        "--profile", base.toString(), "--candidate", cand.toString(), manifests.toString());
    assertThat(code).isEqualTo(1);
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void theShadowDiffEqualsTheOfflineDiffNothingIsDeliveredAndPromoteSendsOnlyTheDifference()
      throws Exception {
    fx.setUp("shadow", "shadow");
    fx.awaitBaseline("shadow", "shadow");

    fx.control().start("shadow", StartRequest.of("s1", CANDIDATE));

    await().atMost(Duration.ofSeconds(60)).until(() -> experiment("shadow") != null
        && experiment("shadow").diff() != null && experiment("shadow").diff().changed() == 1);
    assertThat(fx.status("shadow").currentRevision()).isEqualTo(revision("shadow", CANDIDATE));
    assertThat(fx.status("shadow").deliveredRevision()).isEqualTo(revision("shadow", BASELINE));
    ProfileExperimentStatus.ExperimentDiff live = experiment("shadow").diff();
    assertThat(live.fieldChanges()).isEqualTo(Map.of("labels.tier", 1L));
    Matcher offline = SUMMARY.matcher(offlineDiff("shadow", "shadow"));
    assertThat(offline.find()).isTrue();
    assertThat(new long[] {live.objects(), live.added(), live.removed(), live.changed(),
        live.errors(), live.scrubHits(), live.bytesCandidate() - live.bytesBaseline()})
        .containsExactly(Long.parseLong(offline.group(1)), Long.parseLong(offline.group(2)),
            Long.parseLong(offline.group(3)), Long.parseLong(offline.group(4)),
            Long.parseLong(offline.group(5)), Long.parseLong(offline.group(6)),
            Long.parseLong(offline.group(8)) - Long.parseLong(offline.group(7)));
    // Samples with the changed values, on the operator's HTTP port.
    int port = operator.operator().metricsAddress().orElseThrow().getPort();
    HttpResponse<String> view = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + port + "/experiments/shadow")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(view.statusCode()).isEqualTo(200);
    JsonNode sample = Records.mapper().readTree(view.body()).path("diff").path("samples").get(0);
    assertThat(sample.path("key").asText()).endsWith("/cm-1");
    assertThat(sample.path("after").path("labels.tier").asText()).isEqualTo("gold");
    // Nothing of the candidate was delivered.
    assertThat(fx.records("shadow")).hasSize(3);

    fx.control().promote("shadow", "s1");

    await().atMost(Duration.ofSeconds(30)).until(() -> fx.records("shadow").size() == 4);
    JsonNode promoted = fx.records("shadow").get(3);
    assertThat(promoted.path("name").asText()).isEqualTo("cm-1");
    assertThat(promoted.path("labels").path("tier").asText()).isEqualTo("gold");
    await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5))
        .until(() -> fx.records("shadow").size() == 4);
    assertThat(fx.status("shadow").deliveredRevision()).isEqualTo(revision("shadow", CANDIDATE));
  }

  @Test
  void stoppingAShadowExperimentRestoresTheBaselineAndDeliversNothing() {
    fx.setUp("stop", "stop");
    fx.awaitBaseline("stop", "stop");
    fx.control().start("stop", StartRequest.of("s2", CANDIDATE));
    await().atMost(Duration.ofSeconds(60)).until(() -> experiment("stop") != null
        && experiment("stop").diff() != null);

    fx.control().stop("stop", "s2");

    await().atMost(Duration.ofSeconds(30)).until(() ->
        revision("stop", BASELINE).equals(fx.status("stop").currentRevision()));
    assertThat(experiment("stop").phase()).isEqualTo("rollback");
    await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5))
        .until(() -> fx.records("stop").size() == 3);
  }
}
