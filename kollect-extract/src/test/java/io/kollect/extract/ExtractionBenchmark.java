package io.kollect.extract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Records per second for a 10-field Deployment profile (filters, wildcards, a reducer, an escaped
 * key) over 64 realistic Deployments, one thread. Variants, measured in the same run:
 *
 * <ul>
 *   <li>{@code compiledProfile}: {@link CompiledProfile#extract}, the whole record: projection,
 *       scrubbing, 10 paths, labels, content hash;
 *   <li>{@code compiledPathsOnly}: the same 10 paths, parsed once, evaluated with nothing else
 *       (what path compilation alone buys);
 *   <li>{@code uncompiledParsePerCall}: {@code KubectlPath.parse(pathString)} per field per
 *       object, the cost of a path-per-call evaluator without any cache.
 * </ul>
 *
 * Run: {@code ./mvnw -q -o -pl kollect-extract test-compile exec:exec -Pbench}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ExtractionBenchmark {

  static final int OBJECTS = 64;

  static final String PROFILE = """
      resources:
      - group: apps
        version: v1
        kind: Deployment
        labels: ["app.kubernetes.io/*"]
        fields:
        - {name: replicas, path: "{.spec.replicas}", default: 1}
        - {name: images, path: "{.spec.template.spec.containers[*].image}"}
        - {name: containerNames, path: "{.spec.template.spec.containers[*].name}", reduce: join}
        - {name: containers, path: "{.spec.template.spec.containers}", reduce: count}
        - {name: available, path: '{.status.conditions[?(@.type=="Available")].status}', list: false}
        - {name: progressing, path: '{.status.conditions[?(@.type=="Progressing")].reason}', list: false}
        - {name: ports, path: "{.spec.template.spec.containers[*].ports[*].containerPort}"}
        - {name: cpuRequests, path: "{.spec.template.spec.containers[*].resources.requests.cpu}"}
        - {name: highPorts, path: "{.spec.template.spec.containers[*].ports[?(@.containerPort>9000)].name}"}
        - {name: app, path: "{.metadata.labels.app\\\\.kubernetes\\\\.io/name}"}
      """;

  CompiledProfile profile;
  List<JsonNode> deployments;
  List<KubectlPath> compiledPaths;
  List<String> pathStrings;
  RecordContext ctx;

  @Setup
  public void setUp() throws Exception {
    profile = ProfileCompiler.compile("bench", ProfileLoader.parse(PROFILE, "bench.yaml"));
    deployments = realisticDeployments(OBJECTS, 42);
    compiledPaths = new ArrayList<>();
    pathStrings = new ArrayList<>();
    for (FieldRule f : ProfileLoader.parse(PROFILE, "bench.yaml").resources().get(0).fields()) {
      pathStrings.add(f.path());
      compiledPaths.add(KubectlPath.parse(f.path()));
    }
    ctx = new RecordContext("bench", "bench/bench", Instant.EPOCH);
    if (profile.extract(deployments.get(0), ctx).orElseThrow().fields().size() != 10) {
      throw new IllegalStateException("benchmark profile must produce 10 fields");
    }
  }

  @Benchmark
  @OperationsPerInvocation(OBJECTS)
  public void compiledProfile(Blackhole bh) {
    for (JsonNode d : deployments) {
      bh.consume(profile.extract(d, ctx));
    }
  }

  @Benchmark
  @OperationsPerInvocation(OBJECTS)
  public void compiledPathsOnly(Blackhole bh) {
    for (JsonNode d : deployments) {
      for (KubectlPath p : compiledPaths) {
        bh.consume(p.matches(d));
      }
    }
  }

  @Benchmark
  @OperationsPerInvocation(OBJECTS)
  public void uncompiledParsePerCall(Blackhole bh) throws Exception {
    for (JsonNode d : deployments) {
      for (String p : pathStrings) {
        bh.consume(KubectlPath.parse(p).matches(d));
      }
    }
  }

  /** Variations of a realistic Deployment: 1-4 containers, env, probes, resources, conditions. */
  static List<JsonNode> realisticDeployments(int n, long seed) {
    Random r = new Random(seed);
    JsonNode base = TestObjects.resource("deployment.yaml");
    List<JsonNode> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ObjectNode d = base.deepCopy();
      ObjectNode meta = (ObjectNode) d.get("metadata");
      meta.put("name", "app-" + i);
      meta.put("resourceVersion", String.valueOf(1000 + i));
      ((ObjectNode) meta.get("labels")).put("app.kubernetes.io/name", "app-" + i);
      ((ObjectNode) d.get("spec")).put("replicas", 1 + r.nextInt(6));
      ArrayNode containers = (ArrayNode) d.at("/spec/template/spec/containers");
      JsonNode template = containers.get(0);
      containers.removeAll();
      int count = 1 + r.nextInt(4);
      for (int c = 0; c < count; c++) {
        ObjectNode container = template.deepCopy();
        container.put("name", "c" + c);
        container.put("image", "registry.example.com/team-" + (i % 7) + "/svc-" + i + "-" + c + ":1." + r.nextInt(30));
        ArrayNode ports = (ArrayNode) container.get("ports");
        ((ObjectNode) ports.get(1)).put("containerPort", 9000 + r.nextInt(2000));
        containers.add(container);
      }
      ((ObjectNode) d.at("/status/conditions/0")).put("status", r.nextBoolean() ? "True" : "False");
      out.add(d);
    }
    return out;
  }
}
