package io.kollect.samples.embedding;

// example:begin
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.core.KollectEngine;
import io.kollect.core.TargetId;
import io.kollect.core.TargetScope;
import io.kollect.core.TargetSpec;
import io.kollect.export.postgres.PostgresSink;
import io.kollect.export.postgres.PostgresSinkConfig;
import io.kollect.extract.ProfileLoader;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * Embeds the Kollect engine with a postgres sink: the Deployments of namespace {@code shop} are
 * rows of the view {@code kollect.objects} (replicas and images in {@code fields}), and every
 * change of them a row of {@code kollect.changes}.
 */
public final class PostgresInventoryExample {

  static final String PROFILE = """
      resources:
      - group: apps
        version: v1
        kind: Deployment
        fields:
        - name: replicas
          path: .spec.replicas
        - name: images
          path: .spec.template.spec.containers[*].image
      """;

  /**
   * Starts an engine that writes the inventory of namespace {@code shop} into the database at
   * {@code jdbcUrl}; the credentials are asked again while it runs, so they may rotate.
   */
  public static KollectEngine start(KubernetesClient client, String jdbcUrl,
      Supplier<String> username, Supplier<String> password) {
    PostgresSink sink = new PostgresSink("inventory", PostgresSinkConfig.builder()
        .url(jdbcUrl)
        .credentials(username, password)
        .history(PostgresSinkConfig.History.keptFor(Duration.ofDays(30)))
        // the same for every replica writing this cluster, another for another cluster
        .writerIdentity("kube-system/" + client.namespaces().withName("kube-system").get()
            .getMetadata().getUid())
        .build());
    KollectEngine engine = KollectEngine.builder(client)
        .cluster("example")
        .build();
    engine.putProfile("deployments", ProfileLoader.parse(PROFILE, "deployments.yaml"));
    engine.putSink(sink, PostgresSink.defaultOptions());   // linger 5 ms, no heartbeat
    engine.putTarget(TargetSpec.builder(new TargetId("example", "shop-deployments"),
            "deployments")
        .scope(TargetScope.namespaces("shop"))
        .sinkRefs(List.of("inventory"))
        .build());
    engine.start();
    return engine;
  }
}
// example:end
