package io.kollect.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.kollect.testing.TestApiServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * P7 (remote clusters): what each added KollectCluster costs the packaged operator at a fixed inventory.
 * Two remote API servers hold the same fixture (ConfigMaps and Services of namespace {@code apps});
 * for each count N, N KollectClusters in the control namespace point at them alternately under
 * different names (each its own credential identity, so its own client and informers), one target
 * selects all of them with a profile of those 2 types, and a fresh operator is started. Measured
 * from outside: every record on its stdout (N × the fixture), then after an idle wait its threads
 * ({@code /proc/<pid>/status}), live heap ({@code jcmd GC.run} + {@code GC.heap_info}) and RSS,
 * the watches it holds open on the remote servers ({@code apiserver_longrunning_gauge} of WATCH
 * on the two types, less what the servers hold without it) and the requests it made there
 * ({@code apiserver_request_total}: start-up, then a steady window). Costs per added cluster are
 * the differences between counts divided by the clusters added.
 */
final class ClustersBench {

  record Plan(List<Integer> clusterCounts, int objectsPerType, Duration idleWait,
      Duration steadyWindow, Duration inventoryTimeout) {}

  static final String REMOTE_NAMESPACE = "apps";
  static final String TOKEN = "kollect-bench-remote-token";
  private static final String LABEL = "kollect.io/bench";
  private static final Set<String> WATCHED = Set.of("configmaps", "services");
  private static final Pattern WATCH_GAUGE =
      Pattern.compile("^apiserver_longrunning_gauge\\{([^}]*)}\\s+(\\S+)$", Pattern.MULTILINE);

  private final Plan plan;
  private final BenchCluster home;
  private final OperatorLauncher launcher;

  ClustersBench(Plan plan, BenchCluster home, OperatorLauncher launcher) {
    this.plan = plan;
    this.home = home;
    this.launcher = launcher;
  }

  List<Map<String, Object>> run() throws Exception {
    try (RemoteFleet fleet = RemoteFleet.start(home, 2, plan.objectsPerType())) {
      home.apply(profileYaml());
      home.apply(targetYaml());
      List<Map<String, Object>> out = new ArrayList<>();
      for (int n : plan.clusterCounts()) {
        out.add(runCount(n, fleet.apis()));
      }
      return out;
    }
  }

  static String secretName(int remote) {
    return "remote-" + remote;
  }

  /** {@code objects} ConfigMaps and as many Services in namespace {@code apps}. */
  static void fill(TestApiServer remote, int objects) {
    remote.namespace(REMOTE_NAMESPACE);
    for (int i = 0; i < objects; i++) {
      remote.admin().configMaps().inNamespace(REMOTE_NAMESPACE).resource(new ConfigMapBuilder()
          .withNewMetadata().withName("cm-" + i).endMetadata().withData(Map.of("v", "1")).build())
          .createOr(NonDeletingOperation::update);
      remote.admin().services().inNamespace(REMOTE_NAMESPACE).resource(new ServiceBuilder()
          .withNewMetadata().withName("svc-" + i).endMetadata().withNewSpec()
          .addNewPort().withPort(80).withProtocol("TCP").endPort().endSpec().build())
          .createOr(NonDeletingOperation::update);
    }
  }

  static PlainApi api(TestApiServer server) throws IOException {
    var cfg = server.adminConfig();
    byte[] ca = cfg.getCaCertData() != null
        ? Base64.getDecoder().decode(cfg.getCaCertData())
        : Files.readAllBytes(Path.of(cfg.getCaCertFile()));
    return new PlainApi(cfg.getMasterUrl(), ca, TOKEN);
  }

  private Map<String, Object> runCount(int n, List<PlainApi> remotes) throws Exception {
    System.err.printf("== p7: %d KollectClusters over 2 API servers, %d objects of 2 types each%n",
        n, 2 * plan.objectsPerType());
    replaceClusters(n);
    long expected = (long) n * 2 * plan.objectsPerType();
    Set<String> seen = ConcurrentHashMap.newKeySet();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("clusters", n);
    out.put("records", expected);
    ApiRequestCounts before = requests(remotes);
    long watchesBefore = openWatches(remotes);
    try (OperatorChild op = launcher.start("p7-" + n, home.kubeconfig(), (line, now) -> {
      if (line.startsWith("{")) {
        try {
          JsonNode r = PlainApi.JSON.readTree(line);
          seen.add(r.path("cluster").asText() + "|" + r.path("resource").path("kind").asText()
              + "|" + r.path("name").asText());
        } catch (IOException e) {
          // not a record
        }
      }
    })) {
      long deadline = op.startNanos() + plan.inventoryTimeout().toNanos();
      while (seen.size() < expected && System.nanoTime() < deadline && op.isAlive()) {
        Thread.sleep(100);
      }
      out.put("recordsSeen", seen.size());
      if (seen.size() >= expected) {
        out.put("inventorySeconds", (System.nanoTime() - op.startNanos()) / 1e9);
      }
      ApiRequestCounts startup = requests(remotes);
      ApiRequestCounts startupDelta = startup.minus(before);
      out.put("startupRequests", startupDelta.total());
      out.put("startupByVerbResource", startupDelta.byVerbResource());
      Thread.sleep(plan.idleWait().toMillis());
      out.put("threads", ProcFiles.field(
          Files.readString(Path.of("/proc", Long.toString(op.pid()), "status")), "Threads:"));
      out.put("liveHeapBytes", op.liveHeapAfterFullGc());
      out.put("rssBytes", op.memory().rssBytes());
      out.put("openWatches", openWatches(remotes) - watchesBefore);
      ApiRequestCounts steadyStart = requests(remotes);
      Thread.sleep(plan.steadyWindow().toMillis());
      ApiRequestCounts steady = requests(remotes).minus(steadyStart);
      out.put("steadyWindowSeconds", plan.steadyWindow().toSeconds());
      out.put("steadyRequests", steady.total());
      out.put("steadyByVerbResource", steady.byVerbResource());
      out.put("alive", op.isAlive());
      out.put("diedOfOom", op.diedOfOom());
      System.err.printf("  %s%n", out);
    }
    return out;
  }

  private void replaceClusters(int n) throws InterruptedException {
    replaceClusters(home, n);
  }

  /** Deletes every KollectCluster of the control namespace, then creates {@code n}. */
  static void replaceClusters(BenchCluster home, int n) throws InterruptedException {
    var clusters = home.admin().genericKubernetesResources("kollect.io/v1alpha1", "KollectCluster")
        .inNamespace(Fixture.CONTROL_NAMESPACE);
    clusters.delete();
    while (!clusters.list().getItems().isEmpty()) {
      Thread.sleep(100);
    }
    for (int i = 0; i < n; i++) {
      home.apply("""
          apiVersion: kollect.io/v1alpha1
          kind: KollectCluster
          metadata:
            name: c-%03d
            namespace: %s
            labels: {%s: clusters}
          spec:
            kubeConfig:
              secretRef: {name: %s}
          """.formatted(i, Fixture.CONTROL_NAMESPACE, LABEL, secretName(i % 2)));
    }
  }

  private static ApiRequestCounts requests(List<PlainApi> remotes) throws Exception {
    Map<String, Long> sum = new java.util.TreeMap<>();
    for (PlainApi api : remotes) {
      ApiRequestCounts.parse(api.getText("/metrics")).byVerbResource()
          .forEach((k, v) -> sum.merge(k, v, Long::sum));
    }
    return new ApiRequestCounts(sum);
  }

  /** Open WATCH requests on the two watched types, over both remote servers. */
  static long openWatches(List<PlainApi> remotes) throws Exception {
    long total = 0;
    for (PlainApi api : remotes) {
      total += watchGauge(api.getText("/metrics"));
    }
    return total;
  }

  static long watchGauge(String metrics) {
    long total = 0;
    Matcher m = WATCH_GAUGE.matcher(metrics);
    while (m.find()) {
      String labels = m.group(1);
      Matcher resource = Pattern.compile("resource=\"([^\"]*)\"").matcher(labels);
      if (labels.contains("verb=\"WATCH\"") && resource.find() && WATCHED.contains(resource.group(1))) {
        total += (long) Double.parseDouble(m.group(2));
      }
    }
    return total;
  }

  static String profileYaml() {
    return """
        apiVersion: kollect.io/v1alpha1
        kind: KollectProfile
        metadata: {name: clusters-bench}
        spec:
          resources:
            - version: v1
              kind: ConfigMap
              fields: [{name: v, path: "{.data.v}"}]
            - version: v1
              kind: Service
              fields: [{name: type, path: "{.spec.type}"}]
        """;
  }

  static String targetYaml() {
    return """
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata: {name: fleet, namespace: %s}
        spec:
          profileRef: clusters-bench
          clusterSelector: {matchLabels: {%s: clusters}}
          scope: {namespaces: [%s]}
          writeInventory: false
        """.formatted(Fixture.CONTROL_NAMESPACE, LABEL, REMOTE_NAMESPACE);
  }
}
