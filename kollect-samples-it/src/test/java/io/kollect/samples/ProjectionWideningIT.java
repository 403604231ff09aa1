package io.kollect.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.core.ClientJson;
import io.kollect.core.KollectEngine;
import io.kollect.core.TargetId;
import io.kollect.core.TargetScope;
import io.kollect.core.TargetSpec;
import io.kollect.core.TargetStatus;
import io.kollect.export.Sink;
import io.kollect.export.SinkOptions;
import io.kollect.extract.CompiledProfile;
import io.kollect.extract.FieldRule;
import io.kollect.extract.ProfileCompiler;
import io.kollect.extract.ProfileSpec;
import io.kollect.extract.Record;
import io.kollect.extract.RecordContext;
import io.kollect.extract.ResourceRule;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Projection widening on a real API server: a second profile on a type already watched for a first one
 * reads fields the first did not need (a wider projection of the shared informer cache). Every
 * record the second target delivers, from its first on, equals offline extraction of the full
 * object fetched from the API server: no {@code null} first, no value that stays wrong.
 */
class ProjectionWideningIT {

  static final Duration WAIT = Duration.ofSeconds(60);
  static final int OBJECTS = 30;
  static ApiServer server;
  static KubernetesClient admin;

  /** Keeps every record it is given, in delivery order. */
  static final class CollectingSink implements Sink {
    private final String name;
    private final List<Record> records = new ArrayList<>();

    CollectingSink(String name) {
      this.name = name;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public synchronized void write(List<Record> batch) {
      records.addAll(batch);
    }

    synchronized List<Record> records() {
      return List.copyOf(records);
    }

    /** The last record of each object. */
    synchronized Map<String, Record> latest() {
      Map<String, Record> out = new HashMap<>();
      records.forEach(r -> out.put(r.name(), r));
      return out;
    }
  }

  @BeforeAll
  static void startServer() {
    server = ApiServer.start();
    admin = server.admin();
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  private static ProfileSpec profileReading(String key) {
    return new ProfileSpec(List.of(new ResourceRule("", "v1", "ConfigMap",
        List.of(FieldRule.of(key, ".data." + key)), List.of(), List.of(), List.of(), false,
        false)));
  }

  /** What {@code kollect extract} gives for each object as the API server has it now. */
  private static Map<String, Map<String, JsonNode>> offline(ProfileSpec spec) {
    CompiledProfile compiled = ProfileCompiler.compile("b", spec);
    Map<String, Map<String, JsonNode>> out = new HashMap<>();
    for (ConfigMap cm : admin.configMaps().inNamespace("proj").list().getItems()) {
      JsonNode json = ClientJson.toTree(admin.getKubernetesSerialization(), cm);
      compiled.extract(json, new RecordContext("it", "proj/b", Instant.now()))
          .ifPresent(r -> out.put(r.name(), r.fields()));
    }
    return out;
  }

  @Test
  void aSecondProfileOnAWatchedTypeDeliversCorrectValuesFromItsFirstRecord() {
    admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("proj")
        .endMetadata().build()).create();
    for (int i = 0; i < OBJECTS; i++) {
      admin.configMaps().inNamespace("proj").resource(new ConfigMapBuilder().withNewMetadata()
          .withName("cm-" + i).endMetadata().addToData("a", "a" + i).addToData("b", "b" + i)
          .build()).create();
    }
    CollectingSink first = new CollectingSink("first");
    CollectingSink second = new CollectingSink("second");
    List<TargetStatus> secondStatuses = new ArrayList<>();
    TargetSpec a = new TargetSpec(new TargetId("proj", "a"), 1, "reads-a",
        TargetScope.namespaces("proj"), List.of("first"), false);
    TargetSpec b = new TargetSpec(new TargetId("proj", "b"), 1, "reads-b",
        TargetScope.namespaces("proj"), List.of("second"), false);
    try (KollectEngine engine = KollectEngine.builder(admin).cluster("it").build()) {
      engine.addStatusListener(s -> {
        if (s.id().equals(b.id())) {
          synchronized (secondStatuses) {
            secondStatuses.add(s);
          }
        }
      });
      engine.putProfile("reads-a", profileReading("a"));
      engine.putSink(first, SinkOptions.defaults().withLinger(Duration.ofMillis(20)));
      engine.putSink(second, SinkOptions.defaults().withLinger(Duration.ofMillis(20)));
      engine.putTarget(a);
      engine.start();
      await().atMost(WAIT).until(() -> first.latest().size() == OBJECTS);
      assertThat(engine.awaitIdle(WAIT)).isTrue();

      // The type is watched, projected to data.a. Now a profile that needs data.b.
      engine.putProfile("reads-b", profileReading("b"));
      engine.putTarget(b);
      await().atMost(WAIT).until(() -> second.latest().size() == OBJECTS);
      assertThat(engine.awaitIdle(WAIT)).isTrue();

      Map<String, Map<String, JsonNode>> expected = offline(profileReading("b"));
      assertThat(expected).hasSize(OBJECTS);
      assertThat(second.records()).allSatisfy(r ->
          assertThat(r.fields()).as("record of %s", r.name()).isEqualTo(expected.get(r.name())));
      synchronized (secondStatuses) {
        // Ready was never reported with an object count that the records above contradict.
        assertThat(secondStatuses).filteredOn(TargetStatus::ready)
            .allSatisfy(s -> assertThat(s.objectCounts()).containsEntry("v1/ConfigMap", OBJECTS));
      }

      // A change after widening is seen by both.
      admin.configMaps().inNamespace("proj").withName("cm-0")
          .edit(cm -> new ConfigMapBuilder(cm).addToData("a", "a-new").addToData("b", "b-new")
              .build());
      await().atMost(WAIT).until(() -> "b-new".equals(second.latest().get("cm-0").fields()
          .get("b").asText()) && "a-new".equals(first.latest().get("cm-0").fields().get("a")
          .asText()));
      assertThat(engine.awaitIdle(WAIT)).isTrue();
      Map<String, Map<String, JsonNode>> after = offline(profileReading("b"));
      second.latest().forEach((name, r) -> assertThat(r.fields()).isEqualTo(after.get(name)));
    }
  }
}
