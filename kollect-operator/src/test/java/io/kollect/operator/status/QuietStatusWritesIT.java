package io.kollect.operator.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.operator.ApiServerRequests;
import io.kollect.operator.ReconcileSettings;
import io.kollect.operator.TestOperator;
import io.kollect.operator.cluster.TestCluster;
import io.kollect.operator.crd.KollectTarget;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * A quiet minute costs status writes only for the targets that changed, counted by the API server
 * itself ({@code apiserver_request_total}): {@value #TARGETS} targets whose sink re-sends
 * everything every {@value #HEARTBEAT_SECONDS} s, so that their delivery figures (last
 * acknowledgement) move all the time, and one of them whose objects change.
 *
 * <p>Such figure-only changes used to be written once per the engine's {@code lastExport}
 * interval (30 s when shipped; {@value #LAST_EXPORT_SECONDS} s here, so that the window is short):
 * every target then cost writes in the window, which is four such intervals. They are now written
 * at most once per {@code figureNotifyInterval} (5 min), longer than the window.
 */
class QuietStatusWritesIT {

  private static final Logger log = LoggerFactory.getLogger(QuietStatusWritesIT.class);
  private static final String NS = "quiet";
  private static final int TARGETS = 10;
  private static final int HEARTBEAT_SECONDS = 2;
  /** The engine's {@code lastExport} interval here (shipped: 30 s). */
  private static final int LAST_EXPORT_SECONDS = 5;
  /**
   * Four {@code lastExport} intervals (a delivery refresh, 5 s, included): figure-only changes
   * held back only by that interval would cost every target two writes or more in it, and t0's
   * change has time to be written on a loaded machine.
   */
  private static final Duration WINDOW = Duration.ofSeconds(4 * LAST_EXPORT_SECONDS);
  /** The changed target's writes: its new count, and a retried write after a conflict. */
  private static final int CHANGED_TARGET_WRITES = 3;

  private static TestCluster cluster;
  private static KubernetesClient client;
  private static TestOperator operator;
  private static Path records;

  @BeforeAll
  static void targetsWithAHeartbeatingSink() throws Exception {
    cluster = TestCluster.start();
    client = cluster.client();
    cluster.namespace(NS);
    cluster.namespace("kollect-system");
    records = Files.createTempFile("quiet-status", ".jsonl");
    StringBuilder yaml = new StringBuilder("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectProfile
        metadata: {name: configmaps}
        spec:
          resources:
            - {version: v1, kind: ConfigMap, fields: [{name: data, path: "{.data}"}]}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: file, namespace: quiet}
        spec:
          type: file
          file: {path: "%s"}
          batch: {linger: 0s}
          heartbeatInterval: %ds
        """.formatted(records, HEARTBEAT_SECONDS));
    for (int i = 0; i < TARGETS; i++) {
      cluster.namespace("quiet-" + i);
      yaml.append("""
          ---
          apiVersion: v1
          kind: ConfigMap
          metadata: {name: settings, namespace: quiet-%d}
          data: {a: "1"}
          ---
          apiVersion: kollect.io/v1alpha1
          kind: KollectTarget
          metadata: {name: t%d, namespace: quiet}
          spec:
            profileRef: configmaps
            sinkRefs: [file]
            scope: {namespaces: [quiet-%d]}
          """.formatted(i, i, i));
    }
    cluster.apply(yaml.toString());
    operator = TestOperator.on(cluster)
        .configure(c -> c.toBuilder().tenancy("default", Set.of("kollect-system", NS))
            .statusWriteInterval(Duration.ofMillis(500))
            .timings(ReconcileSettings.Timings.shipped()
                .withLastExportNotifyInterval(Duration.ofSeconds(LAST_EXPORT_SECONDS))).build());
    operator.start();
    await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(250))
        .until(QuietStatusWritesIT::everyTargetReady);
  }

  @AfterAll
  static void stop() throws Exception {
    if (operator != null) {
      operator.close();
    }
    if (cluster != null) {
      cluster.close();
    }
    if (records != null) {
      Files.deleteIfExists(records);
    }
  }

  @Test
  void figuresMovedByHeartbeatsCostNoWriteAndTheTargetWhoseObjectsChangedIsWrittenAtOnce()
      throws Exception {
    Map<String, Long> before = ApiServerRequests.count(client);
    long start = System.nanoTime();
    cluster.apply("""
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: added, namespace: quiet-0}
        data: {b: "2"}
        """);
    // The change reaches t0's status well within the window: writes are not simply stopped.
    await().atMost(WINDOW).pollInterval(Duration.ofMillis(250))
        .until(() -> configMapCount("t0") == 2);
    long changeWrittenMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    long left = WINDOW.toMillis() - changeWrittenMillis;
    if (left > 0) {
      Thread.sleep(left); // the rest of the window: the heartbeats keep moving every target's figures
    }
    Map<String, Long> spent = ApiServerRequests.minus(ApiServerRequests.count(client), before);
    log.info("{} targets, heartbeat every {} s: requests over {} s (t0's change written after {} ms): {}",
        TARGETS, HEARTBEAT_SECONDS, WINDOW.toSeconds(), changeWrittenMillis, spent);
    assertThat(Files.size(records)).as("the heartbeats delivered records").isPositive();
    long statusWrites = spent.getOrDefault("PUT kollect.io/kollecttargets/status", 0L)
        + spent.getOrDefault("PATCH kollect.io/kollecttargets/status", 0L);
    assertThat(statusWrites)
        .as("status writes of %d targets over %s, one of them changed", TARGETS, WINDOW)
        .isBetween(1L, (long) CHANGED_TARGET_WRITES);
  }

  private static int configMapCount(String target) {
    KollectTarget t = client.resources(KollectTarget.class).inNamespace(NS).withName(target).get();
    if (t == null || t.getStatus() == null || t.getStatus().objectCounts() == null) {
      return -1;
    }
    Integer n = t.getStatus().objectCounts().get("v1/ConfigMap");
    return n == null ? 0 : n;
  }

  private static boolean everyTargetReady() {
    var items = client.resources(KollectTarget.class).inNamespace(NS).list().getItems();
    return items.size() == TARGETS && items.stream().allMatch(t ->
        t.getStatus() != null && t.getStatus().conditions() != null
            && t.getStatus().conditions().stream().anyMatch(QuietStatusWritesIT::ready));
  }

  private static boolean ready(Condition c) {
    return "Ready".equals(c.getType()) && "True".equals(c.getStatus());
  }

}
