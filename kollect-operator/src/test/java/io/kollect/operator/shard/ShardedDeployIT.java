package io.kollect.operator.shard;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.kollect.operator.DeployManifestsIT;
import io.kollect.operator.PerClassCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The {@code deploy/sharded/} overlay renders with kubectl and is accepted. */
class ShardedDeployIT {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  @RegisterExtension static final PerClassCluster api = PerClassCluster.bare();

  private static Path overlay() {
    return DeployManifestsIT.deployDir().resolve("sharded");
  }

  @Test
  void everyFileOfTheOverlayIsPartOfItsKustomization() throws Exception {
    JsonNode k = YAML.readTree(overlay().resolve("kustomization.yaml").toFile());
    Set<Path> listed = new HashSet<>();
    for (String field : new String[] {"bases", "resources", "patchesStrategicMerge"}) {
      k.path(field).forEach(e -> listed.add(overlay().resolve(e.asText()).normalize()));
    }
    try (Stream<Path> all = Files.list(overlay())) {
      List<Path> files = all.filter(f -> !f.getFileName().toString().equals("kustomization.yaml"))
          .toList();
      assertThat(listed).containsAll(files);
    }
  }

  @Test
  void theOverlayRunsAStatefulSetWhosePodsTakeTheirShardFromTheirNameAndIsAccepted()
      throws Exception {
    List<HasMetadata> objects = DeployManifestsIT.kustomize(api.client(), overlay());

    assertThat(objects).noneMatch(Deployment.class::isInstance);
    assertThat(objects).extracting(HasMetadata::getKind).contains("CustomResourceDefinition",
        "Namespace", "ServiceAccount", "ClusterRole", "Role", "RoleBinding", "StatefulSet");
    StatefulSet set = objects.stream().filter(StatefulSet.class::isInstance)
        .map(StatefulSet.class::cast).findFirst().orElseThrow();
    Container c = set.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(c.getImage()).isEqualTo("kollect:0.1.0-SNAPSHOT");
    assertThat(c.getArgs()).contains("--shard-from-pod-name", "--leader-elect",
        "--total-shards=" + set.getSpec().getReplicas());
    EnvVar pod = c.getEnv().stream().filter(e -> e.getName().equals("POD_NAME")).findFirst()
        .orElseThrow();
    assertThat(pod.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("metadata.name");
    assertThat(objects).anyMatch(o -> o.getKind().equals("Service")
        && o.getMetadata().getName().equals(set.getSpec().getServiceName()));

    DeployManifestsIT.dryRunApply(api.client(), objects);
  }
}
