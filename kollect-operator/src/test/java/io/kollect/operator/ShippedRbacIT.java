package io.kollect.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.kollect.operator.checkpoint.ConfigMapCheckpointStore;
import io.kollect.operator.cli.RunCommandIT;
import io.kollect.operator.cluster.TestCluster;
import io.kollect.operator.crd.KollectInventory;
import io.kollect.operator.crd.KollectProfile;
import io.kollect.operator.crd.KollectTarget;
import io.kollect.operator.http.InventoryAuth;
import io.kollect.operator.leader.LeaderElectionSettings;
import io.kollect.testing.TestApiServer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operator runs as the shipped ServiceAccount with exactly the shipped RBAC (the API server
 * authenticates it by token and authorises with RBAC), so a permission missing from {@code
 * deploy/rbac} fails here: every sample target must become Ready with nothing skipped, status and
 * inventory written, the Lease and the checkpoint ConfigMaps in place.
 */
class ShippedRbacIT {

  private static final String TOKEN = "kollect-sa-token";
  private static TestCluster cluster;

  @BeforeAll
  static void startCluster() {
    cluster = TestCluster.start(TestApiServer.builder().tokenUser(TOKEN,
        "system:serviceaccount:kollect-system:kollect", "system:serviceaccounts",
        "system:serviceaccounts:kollect-system"));
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static void applyFile(KubernetesClient admin, Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      for (HasMetadata o : admin.load(in).items()) {
        if (o instanceof io.fabric8.kubernetes.api.model.Service svc && svc.getSpec() != null) {
          // the samples pin clusterIPs so their records are stable; here only RBAC matters, and
          // in kube-api-test's /24 a pinned IP was once taken by a Service given a random one
          svc.getSpec().setClusterIP(null);
          svc.getSpec().setClusterIPs(null);
        }
        String ns = o.getMetadata().getNamespace();
        if (ns != null) {
          cluster.namespace(ns);
        }
        HasMetadata applied = admin.resource(o).createOr(NonDeletingOperation::update);
        if (applied instanceof CustomResourceDefinition crd) {
          admin.apiextensions().v1().customResourceDefinitions().withName(crd.getMetadata()
              .getName())
              .waitUntilCondition(TestCluster::established, 30, TimeUnit.SECONDS);
        }
      }
    }
  }

  private static List<Path> yaml(Path d) throws IOException {
    if (!Files.isDirectory(d)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(d)) {
      return files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList();
    }
  }

  @Test
  void theShippedServiceAccountRunsEverySampleWithNothingForbidden() throws Exception {
    KubernetesClient admin = cluster.client();
    for (Path file : DeployManifestsIT.kustomizedFiles(DeployManifestsIT.deployDir())) {
      if (!file.toString().contains("/crds/")) {
        applyFile(admin, file);
      }
    }
    List<Path> samples;
    try (Stream<Path> s = Files.list(Path.of("target/classes/kollect/samples"))) {
      samples = s.filter(Files::isDirectory).sorted().toList();
    }
    // The catalog's tenant RBAC: what the sample targets' ServiceAccount may read.
    for (Path shared : yaml(Path.of("target/classes/kollect/samples"))) {
      applyFile(admin, shared);
    }
    for (Path sample : samples) {
      for (Path crd : yaml(sample.resolve("crds"))) {
        applyFile(admin, crd);
      }
      applyFile(admin, sample.resolve("profile.yaml"));
      applyFile(admin, sample.resolve("target.yaml"));
      for (Path input : yaml(sample.resolve("input"))) {
        applyFile(admin, input);
      }
    }

    try (KubernetesClient client = cluster.clientForToken(TOKEN)) {
      // The credentials really are the service account's: it may not do what RBAC does not grant.
      try {
        client.apps().deployments().inNamespace("kollect-demo").withName("checkout-api")
            .edit(d -> d);
        throw new AssertionError("the service account could write a Deployment");
      } catch (KubernetesClientException e) {
        assertThat(e.getCode()).isEqualTo(403);
      }
      OperatorConfig config = OperatorConfig.builder().clusterName("rbac").workers(2)
          .resyncPeriod(Duration.ofHours(1))
          .leaderElection(new LeaderElectionSettings(true, "kollect-system", "kollect-leader",
              "rbac-it", Duration.ofSeconds(6), Duration.ofSeconds(4), Duration.ofSeconds(1)))
          .inventoryAuth(InventoryAuth.disabled()).operatorNamespace("kollect-system").build();
      try (KollectOperator operator = new KollectOperator(client, config)) {
        operator.start();
        await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> {
          List<KollectTarget> targets = admin.resources(KollectTarget.class).inAnyNamespace()
              .list().getItems();
          assertThat(targets).hasSize(samples.size());
          for (KollectTarget t : targets) {
            assertThat(t.getStatus()).as(t.getMetadata().getName() + ": engine has "
                + operator.engine().status(new io.kollect.core.TargetId(t.getMetadata()
                    .getNamespace(),
                    t.getMetadata().getName()))).isNotNull();
            assertThat(RunCommandIT.condition(t.getStatus().conditions(), "Ready").getStatus())
                .as(t.getMetadata().getName() + " " + t.getStatus()).isEqualTo("True");
            assertThat(t.getStatus().skipped()).as(t.getMetadata().getName()).isNullOrEmpty();
            assertThat(t.getStatus().objectCounts().values().stream().mapToInt(Integer::intValue)
                .sum())
                .as(t.getMetadata().getName()).isPositive();
          }
        });
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
          assertThat(admin.resources(KollectInventory.class).inNamespace("kollect-demo").list()
              .getItems())
              .hasSize(samples.size());
          assertThat(admin.configMaps().inNamespace("kollect-system")
              .withLabel(ConfigMapCheckpointStore.LABEL).list().getItems()).isNotEmpty();
          assertThat(admin.leases().inNamespace("kollect-system").withName("kollect-leader").get()
              .getSpec().getHolderIdentity()).isEqualTo("rbac-it");
          // Profile revisions: ControllerRevisions written by the leader with the shipped Role.
          for (KollectProfile p : admin.resources(KollectProfile.class).list().getItems()) {
            assertThat(p.getStatus().currentRevision()).as(p.getMetadata().getName()).isNotNull();
            assertThat(admin.resources(ControllerRevision.class).inNamespace("kollect-system")
                .withName(p.getStatus().currentRevision()).get())
                .as(p.getMetadata().getName()).isNotNull();
          }
        });
      }
    }
  }
}
