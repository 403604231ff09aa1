package io.kollect.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.core.KollectEngine;
import io.kollect.core.TargetId;
import io.kollect.core.TargetScope;
import io.kollect.core.TargetSpec;
import io.kollect.core.TargetStatus;
import io.kollect.export.HttpSink;
import io.kollect.export.HttpSinkConfig;
import io.kollect.export.SinkOptions;
import io.kollect.extract.ProfileLoader;
import io.kollect.testing.SequencedRecordReceiver;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Latest state wins at the receiver, on a real API server, through the public engine API an embedder uses: an {@code
 * http} sink whose receiver answers slower than the sink's timeout while ConfigMaps are patched at
 * about 10 per second; then the receiver recovers. Requests the exporter gave up on are still
 * applied by the receiver, late, after newer ones. Every object must end at the receiver with the
 * cluster's latest state.
 *
 * <p>The 12 s against 10 s is scaled to 2.5 s against 1 s: the margin between the
 * timeout and the late apply is what lets the retry with the newest states overtake the abandoned
 * request every time (a 0.2 s margin would make the race, and so the test, a matter of luck).
 */
class DeliveryAfterTimeoutIT {

  private static final String NAMESPACE = "delivery";
  private static final int OBJECTS = 150;
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String PROFILE = """
      resources:
      - version: v1
        kind: ConfigMap
        fields:
        - name: v
          path: .data.v
      """;

  private static ApiServer server;
  private static KubernetesClient client;

  @BeforeAll
  static void startApiServer() {
    server = ApiServer.start();
    client = server.admin();
    Fixtures.ensureNamespace(client, NAMESPACE);
  }

  @AfterAll
  static void stopApiServer() {
    if (server != null) {
      server.close();
    }
  }

  private final AtomicLong counter = new AtomicLong();

  private void patch(String name) {
    String v = Long.toString(counter.incrementAndGet());
    client.configMaps().inNamespace(NAMESPACE).withName(name)
        .edit(cm -> new ConfigMapBuilder(cm).addToData("v", v).build());
  }

  private static String name(int i) {
    return "cm-" + i;
  }

  /** Objects whose state at the receiver differs from the cluster's. */
  private static Map<String, String> differences(SequencedRecordReceiver receiver) {
    Map<String, String> cluster = new HashMap<>();
    for (ConfigMap cm : client.configMaps().inNamespace(NAMESPACE).list().getItems()) {
      cluster.put(cm.getMetadata().getName(), cm.getData().get("v"));
    }
    Map<String, JsonNode> held = receiver.byName();
    Map<String, String> diff = new HashMap<>();
    cluster.forEach((name, v) -> {
      JsonNode r = held.get(name);
      String got = r == null ? "<missing>" : r.path("fields").path("v").asText();
      if (!v.equals(got)) {
        diff.put(name, "cluster " + v + ", receiver " + got);
      }
    });
    held.keySet().stream().filter(n -> !cluster.containsKey(n))
        .forEach(n -> diff.put(n, "only at the receiver"));
    return diff;
  }

  @Test
  void everyObjectEndsAtTheReceiverWithTheClustersLatestStateAfterTimeouts() throws Exception {
    for (int i = 0; i < OBJECTS; i++) {
      client.configMaps().inNamespace(NAMESPACE).resource(new ConfigMapBuilder()
          .withNewMetadata().withName(name(i)).endMetadata()
          .addToData("v", Long.toString(counter.incrementAndGet())).build()).create();
    }
    try (SequencedRecordReceiver receiver = new SequencedRecordReceiver();
        KollectEngine engine = KollectEngine.builder(client).cluster("it").build()) {
      engine.putProfile("configmaps", ProfileLoader.parse(PROFILE, "configmaps.yaml"));
      engine.putSink(new HttpSink("receiver", HttpSinkConfig.of(receiver.uri())
              .withTimeout(Duration.ofSeconds(1))),
          SinkOptions.defaults().withLinger(Duration.ofMillis(50))
              // no heartbeat: it would repair what this test must see delivered right
              .withHeartbeatInterval(Duration.ZERO)
              .withBackoff(Duration.ofMillis(100), Duration.ofMillis(400)));
      TargetId id = new TargetId(NAMESPACE, "configmaps");
      engine.putTarget(new TargetSpec(id, 1, "configmaps", TargetScope.namespaces(NAMESPACE),
          List.of("receiver"), false));
      engine.start();
      await().atMost(WAIT).until(() -> engine.status(id).map(TargetStatus::ready).orElse(false));
      await().atMost(WAIT).until(() -> differences(receiver).isEmpty());

      // the receiver turns slower than the sink's timeout while objects change at ~10/s
      receiver.delay(Duration.ofMillis(2500));
      Random random = new Random(12);
      for (int step = 0; step < 100; step++) {
        patch(name(random.nextInt(OBJECTS)));
        Thread.sleep(100);
      }
      // it recovers while requests it will still apply are in progress; the objects in them
      // change once more, so those late requests carry superseded states
      await().atMost(WAIT).until(() -> !receiver.namesInProgress().isEmpty());
      Set<String> late = receiver.namesInProgress();
      receiver.delay(Duration.ZERO);
      late.forEach(this::patch);

      await().atMost(WAIT).untilAsserted(() -> {
        assertThat(engine.awaitIdle(Duration.ofSeconds(1))).as("engine idle").isTrue();
        assertThat(receiver.inProgress()).as("requests in progress").isZero();
        assertThat(differences(receiver)).as("objects the receiver holds wrong").isEmpty();
      });
      // settled: nothing in flight anywhere, and still exact
      assertThat(engine.awaitIdle(Duration.ofSeconds(5))).isTrue();
      assertThat(receiver.inProgress()).isZero();
      assertThat(differences(receiver)).isEmpty();
      assertThat(receiver.unsequenced()).isZero();
      assertThat(receiver.ignoredAsOlder()).as("late requests refused as older").isPositive();
    }
  }
}
