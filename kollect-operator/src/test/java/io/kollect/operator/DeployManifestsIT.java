package io.kollect.operator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.operator.cluster.TestCluster;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The shipped kustomize layout under {@code deploy/} is accepted by a real API server (server-side
 * dry run), so the manifests cannot rot unnoticed.
 */
public class DeployManifestsIT {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  @RegisterExtension static final PerClassCluster api = PerClassCluster.bare();

  public static Path deployDir() {
    return Path.of(System.getProperty("kollect.deploy.dir", "../deploy")).toAbsolutePath().normalize();
  }

  /** The files a kustomization includes, depth first. */
  static List<Path> kustomizedFiles(Path dir) throws IOException {
    JsonNode kustomization = YAML.readTree(dir.resolve("kustomization.yaml").toFile());
    List<Path> files = new ArrayList<>();
    for (JsonNode entry : kustomization.path("resources")) {
      Path p = dir.resolve(entry.asText()).normalize();
      assertThat(p).as("resource %s of %s", entry.asText(), dir).exists();
      if (Files.isDirectory(p)) {
        files.addAll(kustomizedFiles(p));
      } else {
        files.add(p);
      }
    }
    return files;
  }

  @Test
  void everyManifestUnderDeployIsPartOfTheKustomization() throws IOException {
    Set<Path> listed = Set.copyOf(kustomizedFiles(deployDir()));
    try (Stream<Path> all = Files.walk(deployDir())) {
      List<Path> manifests = all.filter(f -> f.getFileName().toString().matches(".*\\.ya?ml"))
          // the sharded overlay is a kustomization of its own (ShardedDeployIT)
          .filter(f -> !f.startsWith(deployDir().resolve("sharded")))
          .filter(f -> !f.getFileName().toString().equals("kustomization.yaml")).toList();
      assertThat(manifests).isNotEmpty();
      assertThat(listed).containsAll(manifests);
    }
    // deploy/crds is a kustomization of its own (CRDs only) and lists exactly the generated CRDs.
    assertThat(kustomizedFiles(deployDir().resolve("crds"))).extracting(p -> p.getFileName().toString())
        .containsExactlyInAnyOrderElementsOf(TestCluster.CRDS.stream().map(c -> c + "-v1.yml").toList());
  }

  /**
   * kubectl's own kustomize renders the layout. kube-api-test will not start an API server without
   * kubectl beside it, so its absence here is a broken setup, not a reason to skip.
   */
  @Test
  void kubectlKustomizeBuildsTheLayoutAndItIsAccepted() throws Exception {
    List<HasMetadata> objects = kustomize(api.client(), deployDir());
    assertThat(objects).hasSize(kustomizedFiles(deployDir()).size());
    Deployment d = objects.stream().filter(Deployment.class::isInstance).map(Deployment.class::cast)
        .findFirst().orElseThrow();
    assertThat(d.getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
        .isEqualTo("kollect:0.1.0-SNAPSHOT");
    dryRunApply(api.client(), objects);
  }

  /**
   * The objects kubectl's own kustomize renders from {@code dir}. kube-api-test will not start an
   * API server without kubectl beside it, so its absence here is a broken setup, not a reason to
   * skip.
   */
  public static List<HasMetadata> kustomize(KubernetesClient client, Path dir) throws Exception {
    Path kubectl;
    try (Stream<Path> dirs = Files.list(Path.of(System.getProperty("user.home"), ".kubeapitest",
        "k8s"))) {
      kubectl = dirs.map(d -> d.resolve("kubectl")).filter(Files::isExecutable).findFirst()
          .orElse(null);
    }
    assertThat(kubectl).as("kubectl next to the API server binaries "
        + "(scripts/provision-kube-binaries.sh installs it)").isNotNull();
    Process p = new ProcessBuilder(kubectl.toString(), "kustomize", dir.toString())
        .redirectErrorStream(true).start();
    String rendered = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as(rendered).isZero();
    return client.load(new ByteArrayInputStream(rendered.getBytes(StandardCharsets.UTF_8)))
        .items();
  }

  /**
   * Applies {@code objects} server-side as a dry run, their namespaces created first: the API
   * server accepts them or the call fails naming the object.
   */
  public static void dryRunApply(KubernetesClient client, List<HasMetadata> objects) {
    for (HasMetadata o : objects) {
      if (o instanceof Namespace ns) {
        client.resource(ns).serverSideApply();
      }
    }
    for (HasMetadata o : objects) {
      client.resource(o).dryRun().fieldManager("kollect-deploy-it").forceConflicts()
          .serverSideApply();
    }
  }

  @Test
  void everyShippedManifestIsAcceptedByTheApiServer() throws IOException {
    KubernetesClient client = api.cluster().client();
    List<HasMetadata> objects = new ArrayList<>();
    for (Path file : kustomizedFiles(deployDir())) {
      try (InputStream in = Files.newInputStream(file)) {
        objects.addAll(client.load(in).items());
      }
    }
    assertThat(objects).extracting(HasMetadata::getKind).contains("CustomResourceDefinition",
        "Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding",
        "Deployment", "Service");
    // Namespaced objects need their namespace to exist even for a dry run.
    for (HasMetadata o : objects) {
      if (o instanceof Namespace ns) {
        client.resource(ns).serverSideApply();
      }
    }
    for (HasMetadata o : objects) {
      HasMetadata accepted = client.resource(o).dryRun().fieldManager("kollect-deploy-it")
          .forceConflicts().serverSideApply();
      assertThat(accepted.getMetadata().getName()).isEqualTo(o.getMetadata().getName());
    }
  }

  @Test
  void theDeploymentRunsHardenedWithProbesAndResources() throws IOException {
    Deployment d = null;
    ClusterRole role = null;
    List<ClusterRole> aggregated = new ArrayList<>();
    List<CustomResourceDefinition> crds = new ArrayList<>();
    for (Path file : kustomizedFiles(deployDir())) {
      try (InputStream in = Files.newInputStream(file)) {
        for (HasMetadata o : api.cluster().client().load(in).items()) {
          if (o instanceof Deployment dep) {
            d = dep;
          } else if (o instanceof ClusterRole cr && cr.getMetadata().getName().equals("kollect")) {
            role = cr;
          } else if (o instanceof ClusterRole cr) {
            aggregated.add(cr);
          } else if (o instanceof CustomResourceDefinition crd) {
            crds.add(crd);
          }
        }
      }
    }
    assertThat(crds).extracting(c -> c.getMetadata().getName())
        .containsExactlyInAnyOrderElementsOf(TestCluster.CRDS);
    assertThat(d).isNotNull();
    var pod = d.getSpec().getTemplate().getSpec();
    assertThat(pod.getServiceAccountName()).isEqualTo("kollect");
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
    var c = pod.getContainers().get(0);
    assertThat(c.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(c.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
    assertThat(c.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(c.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
    assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
    assertThat(c.getResources().getRequests()).containsKeys("cpu", "memory");
    assertThat(c.getResources().getLimits()).containsKey("memory");
    assertThat(c.getArgs()).contains("run", "--leader-elect");
    // Least privilege: nothing may write the watched kinds, and no wildcard anywhere.
    assertThat(role).isNotNull();
    assertThat(role.getRules()).allSatisfy(r -> {
      assertThat(r.getVerbs()).doesNotContain("*");
      assertThat(r.getResources()).doesNotContain("*");
      assertThat(r.getApiGroups()).doesNotContain("*");
    });
    assertThat(role.getRules()).filteredOn(r -> r.getApiGroups().contains("apps"))
        .allSatisfy(r -> assertThat(r.getVerbs()).containsExactly("get", "list", "watch"));
    // The tenant boundary: the operator asks what each target's ServiceAccount may read.
    assertThat(role.getRules()).anySatisfy(r -> {
      assertThat(r.getResources()).contains("subjectaccessreviews");
      assertThat(r.getVerbs()).containsExactly("create");
    });
    // Namespace users get the Kollect kinds through the built-in edit/admin and view roles.
    assertThat(aggregated).extracting(r -> r.getMetadata().getLabels())
        .anySatisfy(l -> assertThat(l).containsEntry("rbac.authorization.k8s.io/aggregate-to-edit", "true"))
        .anySatisfy(l -> assertThat(l).containsEntry("rbac.authorization.k8s.io/aggregate-to-view", "true"));
    assertThat(aggregated).flatExtracting(ClusterRole::getRules).allSatisfy(r -> {
      assertThat(r.getApiGroups()).containsExactly("kollect.io");
      assertThat(r.getResources()).doesNotContain("*");
    });
  }
}
