package io.kollect.core;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kollect.extract.CompiledProfile;
import io.kollect.extract.FieldRule;
import io.kollect.extract.ProfileCompiler;
import io.kollect.extract.ProfileSpec;
import io.kollect.extract.RecordContext;
import io.kollect.extract.ResourceRule;
import io.kollect.informers.ResourceType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The extraction part of one reconcile of a target with {@code objects} Deployments, as the engine
 * runs it after an informer event: every object re-converted and re-extracted ({@code fullPass}),
 * versus the per-target records reused when nothing changed ({@code memoNoneChanged}) and when one object
 * changed ({@code memoOneChanged}, the common case of one event).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ReconcileExtractionBenchmark {

  static final ResourceType DEPLOY = new ResourceType("apps", "v1", "Deployment");

  @Param({"2000"})
  public int objects;

  private final KubernetesSerialization serialization = new KubernetesSerialization();
  private final RecordContext ctx = new RecordContext("bench", "ns/t", Instant.EPOCH);
  private CompiledProfile profile;
  private List<GenericKubernetesResource> cache;
  private TargetRecords warm;
  private final RecordExtractor extractor =
      new RecordExtractor(obj -> ClientJson.toTree(serialization, obj));
  private int version;

  @Setup
  public void setUp() {
    profile = ProfileCompiler.compile("bench", new ProfileSpec(List.of(new ResourceRule("apps",
        "v1", "Deployment", List.of(FieldRule.of("replicas", ".spec.replicas"),
            FieldRule.of("images", ".spec.template.spec.containers[*].image")),
        List.of("app.kubernetes.io/*"), List.of(), List.of(), false, false))));
    cache = new ArrayList<>();
    for (int i = 0; i < objects; i++) {
      cache.add(deployment(i, "1"));
    }
    warm = new TargetRecords();
    pass(warm, blackholeless());
  }

  static GenericKubernetesResource deployment(int i, String rv) {
    return new GenericKubernetesResourceBuilder().withApiVersion("apps/v1").withKind("Deployment")
        .withNewMetadata().withName("app-" + i).withNamespace("ns-" + (i % 20))
        .withResourceVersion(rv).withUid("uid-" + i)
        .addToLabels("app.kubernetes.io/name", "app-" + i).addToLabels("team", "t" + (i % 7))
        .addToAnnotations("deployment.kubernetes.io/revision", "3").endMetadata()
        .addToAdditionalProperties("spec", Map.of(
            "replicas", 1 + i % 5,
            "selector", Map.of("matchLabels", Map.of("app", "app-" + i)),
            "template", Map.of("metadata", Map.of("labels", Map.of("app", "app-" + i)),
                "spec", Map.of("containers", List.of(
                    Map.of("name", "main", "image", "registry/app-" + i + ":1.0",
                        "resources", Map.of("requests", Map.of("cpu", "100m"))),
                    Map.of("name", "sidecar", "image", "registry/proxy:2.1"))))))
        .build();
  }

  private static Blackhole blackholeless() {
    return new Blackhole(
        "Today's password is swordfish. I understand instantiating Blackholes directly is dangerous.");
  }

  private void pass(TargetRecords records, Blackhole bh) {
    TargetRecords.Stamp stamp = records.stamp(DEPLOY, profile, 0, 0);
    for (GenericKubernetesResource obj : cache) {
      ObjectKey key = ObjectKey.of(DEPLOY, obj.getMetadata().getNamespace(),
          obj.getMetadata().getName());
      TargetRecords.Entry e = extractor.entry(records, key, obj, stamp, ctx);
      records.put(key, e);
      bh.consume(e);
    }
  }

  @Benchmark
  public void fullPass(Blackhole bh) {
    pass(new TargetRecords(), bh);
  }

  @Benchmark
  public void memoNoneChanged(Blackhole bh) {
    pass(warm, bh);
  }

  @Benchmark
  public void memoOneChanged(Blackhole bh) {
    int i = version % objects;
    cache.set(i, deployment(i, "v" + (++version)));
    pass(warm, bh);
  }
}
