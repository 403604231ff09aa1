package io.kollect.operator.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.kollect.core.ClusterConnectionException;
import io.kollect.operator.crd.KollectCluster;
import io.kollect.operator.crd.KollectClusterSpec;
import io.kollect.operator.crd.KollectTarget;
import io.kollect.operator.crd.KollectTargetSpec;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ClusterCatalogTest {

  private final ClusterCatalog catalog = new ClusterCatalog("local", Set.of("platform"),
      Set.of("argocd"), Map.of("ops", Path.of("/etc/kollect/ops.yaml")));

  static KollectCluster cluster(String ns, String name, String clusterName, String created,
      Map<String, String> labels) {
    KollectCluster c = new KollectCluster();
    c.getMetadata().setNamespace(ns);
    c.getMetadata().setName(name);
    c.getMetadata().setCreationTimestamp(created);
    c.getMetadata().setLabels(labels);
    c.setSpec(new KollectClusterSpec(clusterName, new KollectClusterSpec.KubeConfig(
        new KollectClusterSpec.SecretRef(name + "-kubeconfig", null)), null));
    return c;
  }

  static KollectTarget target(String ns, String name, KollectTargetSpec.ClusterRef ref,
      Map<String, String> selector) {
    KollectTarget t = new KollectTarget();
    t.getMetadata().setNamespace(ns);
    t.getMetadata().setName(name);
    t.setSpec(new KollectTargetSpec("p", null, List.of(), false, null, ref,
        selector == null ? null : new LabelSelectorBuilder().withMatchLabels(selector).build(),
        null, null));
    return t;
  }

  @Test
  void aTargetWithoutClustersReadsTheOperatorsOwn() {
    assertThat(catalog.resolve(target("team", "t", null, null))).isEmpty();
  }

  @Test
  void aSelectorPicksTheLabelledKollectClustersOfTheTargetsNamespaceOnly() {
    catalog.put(cluster("team", "a", null, "2026-01-01T00:00:00Z", Map.of("env", "prod")));
    catalog.put(cluster("team", "b", "bee", "2026-01-01T00:00:00Z", Map.of("env", "prod")));
    catalog.put(cluster("team", "c", null, "2026-01-01T00:00:00Z", Map.of("env", "dev")));
    catalog.put(cluster("other", "d", null, "2026-01-01T00:00:00Z", Map.of("env", "prod")));
    assertThat(catalog.resolve(target("team", "t", null, Map.of("env", "prod"))))
        .containsExactly("a", "bee");
  }

  @Test
  void aSelectorMatchingNothingNeverFallsBackToTheLocalCluster() throws Exception {
    List<String> clusters = catalog.resolve(target("team", "t", null, Map.of("env", "prod")));
    assertThat(clusters).singleElement().satisfies(name -> {
      assertThat(ClusterCatalog.isUnavailable(name)).isTrue();
      assertThatThrownBy(() -> catalog.source(name))
          .isInstanceOfSatisfying(ClusterConnectionException.class, e -> {
            assertThat(e.reason()).isEqualTo("ClusterNotFound");
            assertThat(e.getMessage()).isEqualTo(
                "spec.clusterSelector: matches no KollectCluster in namespace team");
          });
    });
  }

  @Test
  void aReferenceToAnotherNamespaceIsRefusedEvenWhenTheClusterExists() {
    catalog.put(cluster("other", "prod", null, "2026-01-01T00:00:00Z", Map.of()));
    String name = catalog.resolve(target("team", "t",
        new KollectTargetSpec.ClusterRef("prod", "other"), null)).get(0);
    assertThat(name).isNotEqualTo("prod");
    assertThatThrownBy(() -> catalog.source(name))
        .isInstanceOfSatisfying(ClusterConnectionException.class, e -> {
          assertThat(e.reason()).isEqualTo("Forbidden");
          assertThat(e.getMessage()).contains("KollectCluster other/prod is in another namespace");
        });
    assertThat(ClusterCatalog.displayName(name)).isEqualTo("other/prod");
  }

  @Test
  void aMissingReferenceSaysWhichKollectClusterDoesNotExist() {
    String name = catalog.resolve(target("team", "t", new KollectTargetSpec.ClusterRef("x"),
        null)).get(0);
    assertThatThrownBy(() -> catalog.source(name))
        .hasMessage("spec.clusterRef: KollectCluster team/x does not exist");
  }

  @Test
  void theNewerOfTwoKollectClustersWithOneClusterNameHasTheProblemUntilTheOlderGoes()
      throws Exception {
    catalog.put(cluster("team", "old", "prod", "2026-01-01T00:00:00Z", Map.of()));
    Set<String> changed = catalog.put(cluster("other", "new", "prod", "2026-02-01T00:00:00Z",
        Map.of()));
    assertThat(changed).isEmpty();
    assertThat(catalog.problem("team/old")).isEmpty();
    assertThat(catalog.problem("other/new")).hasValueSatisfying(p -> {
      assertThat(p.reason()).isEqualTo("ClusterNameConflict");
      assertThat(p.message()).contains("already used by KollectCluster team/old");
    });
    assertThat(catalog.source("prod").owner()).isEqualTo("KollectCluster team/old");
    String refused = catalog.resolve(target("other", "t", new KollectTargetSpec.ClusterRef("new"),
        null)).get(0);
    assertThat(ClusterCatalog.isUnavailable(refused)).isTrue();

    assertThat(catalog.remove("team", "old")).containsExactly("prod");
    assertThat(catalog.problem("other/new")).isEmpty();
    assertThat(catalog.resolve(target("other", "t", new KollectTargetSpec.ClusterRef("new"), null)))
        .containsExactly("prod");
  }

  @Test
  void theOperatorsOwnAndFileClusterNamesAreReserved() {
    catalog.put(cluster("team", "local", null, "2026-01-01T00:00:00Z", Map.of()));
    catalog.put(cluster("team", "x", "ops", "2026-01-01T00:00:00Z", Map.of()));
    assertThat(catalog.problem("team/local")).hasValueSatisfying(p ->
        assertThat(p.message()).contains("--cluster-name"));
    assertThat(catalog.problem("team/x")).hasValueSatisfying(p ->
        assertThat(p.message()).contains("--cluster ops"));
  }

  @Test
  void fileClustersServeTargetsOfTrustedNamespacesOnly() throws Exception {
    assertThat(catalog.resolve(target("platform", "t", new KollectTargetSpec.ClusterRef("ops"),
        null))).containsExactly("ops");
    assertThat(catalog.source("ops").fromFile()).isTrue();
    String refused = catalog.resolve(target("team", "t", new KollectTargetSpec.ClusterRef("ops"),
        null)).get(0);
    assertThatThrownBy(() -> catalog.source(refused)).hasMessageContaining(
        "may only be read by targets in the namespaces the operator trusts");
  }

  @Test
  void aSecretOfAnotherNamespaceMustBeListedAndNamedFromATrustedNamespace() {
    KollectCluster argo = cluster("platform", "argo", null, "2026-01-01T00:00:00Z", Map.of());
    argo.setSpec(new KollectClusterSpec(null, null,
        new KollectClusterSpec.SecretRef("cluster-prod", null, "argocd")));
    catalog.put(argo);
    assertThat(catalog.problem("platform/argo")).isEmpty();

    KollectCluster borrowed = cluster("team", "borrowed", null, "2026-01-01T00:00:00Z", Map.of());
    borrowed.setSpec(argo.getSpec());
    catalog.put(borrowed);
    assertThat(catalog.problem("team/borrowed")).hasValueSatisfying(p -> {
      assertThat(p.reason()).isEqualTo("Forbidden");
      assertThat(p.message()).contains("only KollectClusters in the namespaces the operator "
          + "trusts (--cluster-wide-namespaces) may name Secrets of another namespace");
    });
    assertThat(ClusterCatalog.source(argo).secret()).isEqualTo("Secret argocd/cluster-prod");
    assertThat(ClusterCatalog.source(argo).argoCd()).isTrue();

    KollectCluster sneaky = cluster("team", "sneaky", null, "2026-01-01T00:00:00Z", Map.of());
    sneaky.setSpec(new KollectClusterSpec(null, new KollectClusterSpec.KubeConfig(
        new KollectClusterSpec.SecretRef("admin-kubeconfig", null, "kube-system")), null));
    catalog.put(sneaky);
    assertThat(catalog.problem("team/sneaky")).hasValueSatisfying(p -> {
      assertThat(p.reason()).isEqualTo("Forbidden");
      assertThat(p.message()).startsWith("spec.kubeConfig.secretRef.namespace: Secrets of "
          + "namespace kube-system may not be used");
    });
    assertThat(catalog.secrets()).doesNotContain("kube-system/admin-kubeconfig");
  }

  @Test
  void aSpecNeedsExactlyOneSource() {
    KollectCluster none = cluster("team", "none", null, "2026-01-01T00:00:00Z", Map.of());
    none.setSpec(new KollectClusterSpec(null, null, null));
    catalog.put(none);
    assertThat(catalog.problem("team/none")).hasValueSatisfying(p -> assertThat(p.message())
        .isEqualTo("spec: one of kubeConfig.secretRef and argoCDSecretRef is required"));
  }

  @Test
  void unavailableNamesReadAsTheReferenceTheyCameFrom() {
    assertThat(ClusterCatalog.withDisplayNames("cluster missing:gone:east: spec.clusterRef: "
        + "KollectCluster gone/east does not exist; cluster refused::ops: no"))
        .isEqualTo("cluster gone/east: spec.clusterRef: KollectCluster gone/east does not exist; "
            + "cluster ops: no");
    assertThat(ClusterCatalog.withDisplayNames("cluster prod: 3 objects")).isEqualTo(
        "cluster prod: 3 objects");
  }
}
