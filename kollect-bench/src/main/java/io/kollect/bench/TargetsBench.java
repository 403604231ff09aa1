package io.kollect.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * P2: API requests against the number of targets. For each count N: N KollectTargets in the
 * control namespace, target i scoped to fixture namespace {@code i % 20} (namespace-scoped targets
 * as tenants write them), one shared http sink; the operator is started and the API server's own
 * {@code apiserver_request_total} is read before the start, when every target's status has been
 * written (startup) and after a steady window; before the start, a quiet window of the same
 * server without the operator gives its background requests. The runner's own requests in those windows are one
 * watch of KollectTargets, opened before the first snapshot and still open at the last, so it is
 * not counted (the API server counts a request when it ends), and GET /metrics, which is not a
 * resource request.
 */
final class TargetsBench {

  record Plan(List<Integer> targetCounts, int objects, Duration steadyWindow, Duration statusTimeout) {}

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final String TARGETS = "/apis/kollect.io/v1alpha1/namespaces/" + Fixture.CONTROL_NAMESPACE
      + "/kollecttargets";

  private static final Duration BACKGROUND_WINDOW = Duration.ofSeconds(20);

  private final Plan plan;
  private final BenchCluster cluster;
  private final OperatorLauncher launcher;
  private final RecordReceiver receiver;

  TargetsBench(Plan plan, BenchCluster cluster, OperatorLauncher launcher, RecordReceiver receiver) {
    this.plan = plan;
    this.cluster = cluster;
    this.launcher = launcher;
    this.receiver = receiver;
  }

  List<Map<String, Object>> run() throws Exception {
    cluster.growTo(plan.objects(), 32);
    cluster.apply(Fixture.profileYaml());
    cluster.apply(Fixture.httpSinkYaml("bench-http", receiver.url()));
    receiver.deliverTo(new Channel("http", Integer.MAX_VALUE));
    List<Map<String, Object>> out = new ArrayList<>();
    for (int n : plan.targetCounts()) {
      out.add(runCount(n));
    }
    return out;
  }

  private Map<String, Object> runCount(int n) throws Exception {
    System.err.printf("== p2: %d targets over %d ConfigMaps%n", n, plan.objects());
    recreateTargets(n);
    PlainApi api = cluster.api();
    String rv = api.listAll(TARGETS, 500).resourceVersion();
    Map<String, Long> statusAt = new ConcurrentHashMap<>();
    Map<String, Long> readyAt = new ConcurrentHashMap<>();
    api.watch(TARGETS, rv, ev -> {
      long now = System.nanoTime();
      JsonNode o = ev.path("object");
      String name = o.path("metadata").path("name").asText();
      JsonNode status = o.path("status");
      if (status.isObject() && status.size() > 0) {
        statusAt.putIfAbsent(name, now);
        for (JsonNode c : status.path("conditions")) {
          if ("Ready".equals(c.path("type").asText()) && "True".equals(c.path("status").asText())) {
            readyAt.putIfAbsent(name, now);
          }
        }
      }
    });
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("targets", n);
    // The API server's own loops (e.g. the kubernetes Service endpoint reconciler) make requests
    // too: count them over a quiet window first, so the operator's share can be told apart.
    ApiRequestCounts quiet = ApiRequestCounts.parse(api.getText("/metrics"));
    Thread.sleep(BACKGROUND_WINDOW.toMillis());
    ApiRequestCounts before = ApiRequestCounts.parse(api.getText("/metrics"));
    ApiRequestCounts background = before.minus(quiet);
    out.put("backgroundWindowSeconds", BACKGROUND_WINDOW.toSeconds());
    out.put("backgroundRequests", background.total());
    out.put("backgroundByVerbResource", background.byVerbResource());
    try (OperatorChild op = launcher.start("p2-" + n, cluster.kubeconfig(), (line, now) -> { })) {
      long deadline = op.startNanos() + plan.statusTimeout().toNanos();
      long lastReport = System.nanoTime();
      while ((statusAt.size() < n || readyAt.size() < n) && System.nanoTime() < deadline && op.isAlive()) {
        Thread.sleep(100);
        if (System.nanoTime() - lastReport > 10_000_000_000L) {
          lastReport = System.nanoTime();
          System.err.printf("  ... %.0f s: %d statuses, %d Ready%n", (System.nanoTime() - op.startNanos()) / 1e9,
              statusAt.size(), readyAt.size());
        }
      }
      out.put("statusesWritten", statusAt.size());
      out.put("ready", readyAt.size());
      if (statusAt.size() >= n) {
        out.put("allStatusesSeconds", (statusAt.values().stream().mapToLong(Long::longValue).max().orElseThrow()
            - op.startNanos()) / 1e9);
      }
      if (readyAt.size() >= n) {
        out.put("allReadySeconds", (readyAt.values().stream().mapToLong(Long::longValue).max().orElseThrow()
            - op.startNanos()) / 1e9);
      }
      ApiRequestCounts startup = ApiRequestCounts.parse(api.getText("/metrics"));
      ApiRequestCounts startupDelta = startup.minus(before);
      out.put("startupRequests", startupDelta.total());
      out.put("startupByVerbResource", startupDelta.byVerbResource());
      System.err.printf("  startup: %s%n", out);
      Thread.sleep(plan.steadyWindow().toMillis());
      ApiRequestCounts steady = ApiRequestCounts.parse(api.getText("/metrics")).minus(startup);
      out.put("steadyWindowSeconds", plan.steadyWindow().toSeconds());
      out.put("steadyRequests", steady.total());
      out.put("steadyByVerbResource", steady.byVerbResource());
      out.put("alive", op.isAlive());
      out.put("diedOfOom", op.diedOfOom());
      System.err.printf("  steady: %d requests in %s: %s%n", steady.total(), plan.steadyWindow(),
          steady.byVerbResource());
    }
    return out;
  }

  /** Deletes every target, then creates {@code n} fresh ones (no status), 32 requests in flight. */
  private void recreateTargets(int n) throws Exception {
    PlainApi api = cluster.api();
    HttpResponse<String> deleted = api.delete(TARGETS);
    if (deleted.statusCode() != 200) {
      throw new IllegalStateException("delete targets: HTTP " + deleted.statusCode() + " " + deleted.body());
    }
    while (api.listAll(TARGETS, 500).items() > 0) {
      Thread.sleep(100);
    }
    java.util.concurrent.Semaphore inFlight = new java.util.concurrent.Semaphore(32);
    List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String json = YAML.readTree(Fixture.targetYaml(String.format("t-%04d", i), List.of("bench-http"),
          Fixture.namespace(i))).toString();
      inFlight.acquire();
      all.add(api.postAsync(TARGETS, json).whenComplete((r, e) -> inFlight.release()));
    }
    for (CompletableFuture<HttpResponse<String>> f : all) {
      HttpResponse<String> r = f.get();
      if (r.statusCode() != 201) {
        throw new IllegalStateException("create target: HTTP " + r.statusCode() + " " + r.body());
      }
    }
  }
}
