package io.kollect.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.operator.cluster.TestCluster;
import io.kollect.operator.crd.KollectTarget;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What starting the operator with many targets costs the API server, counted by the API server
 * itself ({@code apiserver_request_total} on its {@code /metrics}) between the operator's start and
 * the moment every target's status is written: a target that writes no inventory costs no
 * KollectInventory request, and each target costs at most one status write.
 *
 * <p>{@code -Dkollect.load.targets=1000} runs the same measurement with more targets (the P2 row
 * of {@code docs/benchmarks.md}); the counts and the time are logged either way.
 */
class StartupApiLoadIT {

  private static final Logger log = LoggerFactory.getLogger(StartupApiLoadIT.class);
  private static final String NS = "load";
  private static final int TARGETS = Integer.getInteger("kollect.load.targets", 50);
  /** Targets with {@code writeInventory: true}: these may list and write their own objects. */
  private static final int INVENTORY_TARGETS = 2;
  /** Requests that do not grow with the targets: profile and sink status, the sweep's list. */
  private static final int CONSTANT = 5;

  private static TestCluster cluster;
  private static KubernetesClient client;
  private static TestOperator operator;

  @BeforeAll
  static void clusterWithManyTargets() {
    cluster = TestCluster.start();
    client = cluster.client();
    cluster.namespace(NS);
    cluster.namespace("kollect-system");
    StringBuilder yaml = new StringBuilder("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectProfile
        metadata: {name: configmaps}
        spec:
          resources:
            - {version: v1, kind: ConfigMap, fields: [{name: data, path: "{.data}"}]}
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: settings, namespace: load}
        data: {a: "1"}
        """);
    for (int i = 0; i < TARGETS + INVENTORY_TARGETS; i++) {
      yaml.append("""
          ---
          apiVersion: kollect.io/v1alpha1
          kind: KollectTarget
          metadata: {name: t%d, namespace: load}
          spec:
            profileRef: configmaps
            scope: {namespaces: [load]}
            writeInventory: %s
          """.formatted(i, i >= TARGETS));
    }
    cluster.apply(yaml.toString());
  }

  @AfterAll
  static void stop() {
    if (operator != null) {
      operator.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void startupCostsAtMostOneStatusWritePerTargetAndNoInventoryCallsForTargetsWithoutInventory()
      throws Exception {
    Map<String, Long> before = ApiServerRequests.count(client);
    long start = System.nanoTime();
    operator = TestOperator.on(cluster)
        .rateLimited(Double.parseDouble(System.getProperty("kollect.load.qps",
            String.valueOf(KubeClients.DEFAULT_QPS))),
            Integer.getInteger("kollect.load.burst", KubeClients.DEFAULT_BURST))
        .configure(c -> c.toBuilder().tenancy("default", Set.of("kollect-system", NS)).build())
        .configure(c -> c.toBuilder().workers(2).build());
    operator.start();
    await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(250))
        .until(StartupApiLoadIT::everyStatusWritten);
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    Map<String, Long> spent = ApiServerRequests.minus(ApiServerRequests.count(client), before);
    log.info("{} targets ({} with inventory): every status written {} ms after the start; "
        + "requests by verb and resource: {}", TARGETS + INVENTORY_TARGETS, INVENTORY_TARGETS,
        millis, spent);

    int targets = TARGETS + INVENTORY_TARGETS;
    assertThat(spent.getOrDefault("DELETECOLLECTION kollect.io/kollectinventories", 0L))
        .as("no target without inventory objects has them deleted").isZero();
    assertThat(spent.getOrDefault("DELETE kollect.io/kollectinventories", 0L)).isZero();
    assertThat(spent.getOrDefault("LIST kollect.io/kollectinventories", 0L))
        .as("one list for the sweep, and one per target that writes inventory objects")
        .isLessThanOrEqualTo(1 + INVENTORY_TARGETS);
    long statusWrites = spent.getOrDefault("PUT kollect.io/kollecttargets/status", 0L)
        + spent.getOrDefault("PATCH kollect.io/kollecttargets/status", 0L);
    assertThat(statusWrites).as("status writes of %d targets", targets)
        .isLessThanOrEqualTo(targets + CONSTANT);
    assertThat(spent.getOrDefault("GET kollect.io/kollecttargets", 0L)
        + spent.getOrDefault("GET kollect.io/kollecttargets/status", 0L))
        .as("a status write needs no GET of its target").isLessThanOrEqualTo(CONSTANT);

    // Steady state: nothing changes, so over more than a status write interval nothing is
    // written but the inventory block of the targets that write inventory objects.
    Map<String, Long> settled = ApiServerRequests.count(client);
    await().during(OperatorConfig.DEFAULT_STATUS_WRITE_INTERVAL.plusSeconds(2))
        .atMost(OperatorConfig.DEFAULT_STATUS_WRITE_INTERVAL.plusSeconds(30))
        .until(() -> statusWrites(ApiServerRequests.minus(ApiServerRequests.count(client),
            settled)) <= INVENTORY_TARGETS);
    log.info("steady state, requests over {}: {}", OperatorConfig.DEFAULT_STATUS_WRITE_INTERVAL
        .plusSeconds(2), ApiServerRequests.minus(ApiServerRequests.count(client), settled));
  }

  private static long statusWrites(Map<String, Long> requests) {
    return requests.getOrDefault("PUT kollect.io/kollecttargets/status", 0L)
        + requests.getOrDefault("PATCH kollect.io/kollecttargets/status", 0L);
  }

  /** Every target has a status that says it is Ready. */
  private static boolean everyStatusWritten() {
    var items = client.resources(KollectTarget.class).inNamespace(NS).list().getItems();
    return items.size() == TARGETS + INVENTORY_TARGETS && items.stream().allMatch(t ->
        t.getStatus() != null && t.getStatus().conditions() != null
            && t.getStatus().conditions().stream().anyMatch(StartupApiLoadIT::ready));
  }

  private static boolean ready(Condition c) {
    return "Ready".equals(c.getType()) && "True".equals(c.getStatus());
  }

}
