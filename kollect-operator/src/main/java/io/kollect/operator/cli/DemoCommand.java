package io.kollect.operator.cli;

import ch.qos.logback.classic.Level;
import io.fabric8.kubeapitest.KubeAPIServer;
import io.fabric8.kubeapitest.KubeAPIServerConfigBuilder;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kollect.operator.http.BindAddress;
import io.kollect.operator.http.InventoryAuth;
import io.kollect.operator.KollectOperator;
import io.kollect.operator.LogSetup;
import io.kollect.operator.OperatorConfig;
import io.kollect.operator.crd.KollectCluster;
import io.kollect.operator.crd.KollectTarget;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code kollect demo}: the whole product on a laptop with no cluster. Starts a real local API
 * server, installs the CRDs and the sample catalog, starts a second API server ({@link
 * EdgeCluster}) that the operator reads as a KollectCluster (the fleet view), runs the operator's
 * engine and serves the inventory, until Ctrl-C or {@code --duration}.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Start a local Kubernetes API server with the Kollect CRDs and sample catalog and a "
          + "second one (cluster edge, registered as a KollectCluster), run the operator against "
          + "them and show the inventory of both. Edit objects with the kubeconfigs it writes "
          + "and watch the records change.",
      "Records are printed to standard output as JSON lines; everything else goes to standard error."
    })
final class DemoCommand implements Callable<Integer> {

  @ParentCommand KollectCommand parent;

  @Option(names = "--duration", paramLabel = "DURATION", converter = Converters.GoDuration.class,
      description = "Stop after this long (default: run until Ctrl-C).")
  Duration duration;

  @Option(names = "--dir", paramLabel = "DIR", defaultValue = "kollect-demo",
      description = "Where the kubeconfig and the inventory token are written (default: ./${DEFAULT-VALUE}).")
  Path dir;

  @Option(names = "--inventory-address", paramLabel = "ADDR", defaultValue = "127.0.0.1:8080",
      converter = Converters.Address.class,
      description = "Where /inventory and /metrics are served (default: ${DEFAULT-VALUE}; 127.0.0.1:0 picks a free port).")
  BindAddress inventoryAddress;

  @Option(names = "--log-level", paramLabel = "LEVEL", defaultValue = "warn",
      description = "trace, debug, info, warn or error (default: ${DEFAULT-VALUE}).")
  String logLevel;

  /**
   * Runs the demo. Longer than the other methods on purpose: it owns the lifetime of two API
   * servers and an operator, and their start and the {@code finally} that stops them read together.
   */
  @Override
  public Integer call() throws Exception {
    PrintStream out = parent.out();
    PrintStream err = parent.err();
    LogSetup.configure(Level.toLevel(logLevel, Level.WARN), LogSetup.Format.text, err);
    Files.createDirectories(dir);
    Path kubeconfigFile = dir.resolve("kubeconfig").toAbsolutePath();
    Path edgeKubeconfigFile = dir.resolve("kubeconfig-" + EdgeCluster.NAME).toAbsolutePath();
    Path tokenFile = dir.resolve("inventory-token").toAbsolutePath();
    writeRandomToken(tokenFile);

    Optional<Path> binaries = localBinaries();
    err.println("kollect demo: starting a local Kubernetes API server"
        + binaries.map(b -> " (" + b.getParent().getFileName() + ")")
            .orElse(" (downloading binaries)")
        + " ...");
    StopSignal stop = new StopSignal("kollect-demo-shutdown");
    KubeAPIServer apiServer = LocalApiServer.start(KubeAPIServerConfigBuilder.anAPIServerConfig()
        .withOfflineMode(binaries.isPresent())
        .build(), err);
    KollectOperator operator = null;
    EdgeCluster edge = null;
    DemoDatabase database = null;
    try {
      String kubeconfig = apiServer.getKubeConfigYaml();
      Files.writeString(kubeconfigFile, kubeconfig);
      try (KubernetesClient client = new KubernetesClientBuilder()
          .withConfig(Config.fromKubeconfig(kubeconfig)).build()) {
        ClusterSetup setup = new ClusterSetup(client);
        err.println("kollect demo: installing the Kollect CRDs ...");
        setup.installKollectCrds();
        List<String> samples = setup.applySamples(s -> err.println("kollect demo: applying sample " + s));
        if (samples.isEmpty()) {
          err.println("kollect demo: no samples are bundled in this build; apply your own with the kubeconfig below");
        }
        err.println("kollect demo: starting a second API server, cluster " + EdgeCluster.NAME
            + ", and registering it as a KollectCluster ...");
        edge = EdgeCluster.start(dir, binaries.isPresent(), err);
        Files.writeString(edgeKubeconfigFile, edge.adminKubeconfig());
        edge.register(setup);
        database = startDatabase(client, err);
        OperatorConfig config = OperatorConfig.builder().clusterName("demo").workers(2)
            .resyncPeriod(Duration.ofHours(10)).metricsAddress(inventoryAddress)
            .inventoryAuth(InventoryAuth.tokenFile(tokenFile)).operatorNamespace("default")
            .stdoutRecords(Optional.of(out))
            // Two demo clusters, a handful of targets: statuses follow changes within a second.
            .statusWriteInterval(Duration.ofSeconds(1)).build();
        operator = new KollectOperator(client, config);
        try {
          operator.start();
        } catch (java.net.BindException e) {
          throw new BadInputException("--inventory-address: " + e.getMessage()
              + " (another program uses it; try --inventory-address 127.0.0.1:0)");
        }
        awaitSettled(operator, client);
        InetSocketAddress http = operator.metricsAddress().orElseThrow();
        printHowTo(err, kubeconfigFile, edgeKubeconfigFile, tokenFile, http);
        if (database != null) {
          printFleetQuestion(database, config.clusterName(), err);
        }
        printSummaryUntilStopped(client, config.clusterName(), stop, err);
        err.println("kollect demo: stopping");
        operator.close();
        operator = null;
      }
    } finally {
      if (operator != null) {
        operator.close();
      }
      if (edge != null) {
        edge.close();
      }
      if (database != null) {
        database.close();
      }
      apiServer.stop();
      stop.close();
    }
    return 0;
  }

  /**
   * Starts the local PostgreSQL and points a postgres KollectSink of every target at it, when the
   * server binaries are installed ({@code scripts/demo.sh} installs them); otherwise the demo goes
   * on without it.
   */
  private DemoDatabase startDatabase(KubernetesClient client, PrintStream err) throws IOException {
    Optional<DemoDatabase> database;
    try {
      database = DemoDatabase.startIfInstalled(dir);
    } catch (RuntimeException e) {
      err.println("kollect demo: PostgreSQL did not start, going on without it: " + e.getMessage());
      return null;
    }
    if (database.isEmpty()) {
      err.println("kollect demo: PostgreSQL 15 is not installed (scripts/demo.sh installs it); "
          + "going on without the SQL inventory");
      return null;
    }
    err.println("kollect demo: started a local PostgreSQL; KollectSink " + DemoDatabase.NAMESPACE
        + "/" + DemoDatabase.SINK + " writes both clusters into it ...");
    database.get().connect(client);
    return database.get();
  }

  /**
   * Waits (at most a minute) until both clusters' objects are in the database, then prints how to
   * open it and the answer to one question across the fleet.
   */
  private static void printFleetQuestion(DemoDatabase database, String localCluster,
      PrintStream err) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while ((database.objects(localCluster) == 0 || database.objects(EdgeCluster.NAME) == 0)
        && System.nanoTime() < deadline) {
      Thread.sleep(200);
    }
    err.println("  The inventory in SQL (view kollect.objects, history in kollect.changes):");
    err.println("    " + database.psqlCommand());
    err.println();
    err.println("  Which images run in which cluster (docs/examples/postgres/):");
    err.println("    " + DemoDatabase.IMAGES_PER_CLUSTER);
    err.println();
    err.print(database.imagesPerCluster().indent(4));
    err.println();
  }

  /** A random bearer token for {@code /inventory}, written to {@code tokenFile}. */
  private static void writeRandomToken(Path tokenFile) throws IOException {
    byte[] secret = new byte[24];
    new SecureRandom().nextBytes(secret);
    Files.writeString(tokenFile, HexFormat.of().formatHex(secret) + "\n");
  }

  /**
   * Waits (at most a minute) until the operator is ready, reads the edge cluster, is idle, and
   * every target has a status: the first table is worth reading then.
   */
  private static void awaitSettled(KollectOperator operator, KubernetesClient client)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!operator.isReady() && System.nanoTime() < deadline) {
      Thread.sleep(200);
    }
    // The edge cluster's watches open once the operator has read its KollectCluster.
    while (!connected(operator, EdgeCluster.NAME) && System.nanoTime() < deadline) {
      Thread.sleep(200);
    }
    operator.engine().awaitIdle(Duration.ofSeconds(20));
    // Statuses are written each second.
    while (!everyTargetReported(client) && System.nanoTime() < deadline) {
      Thread.sleep(200);
    }
  }

  /** Prints the summary table, and again whenever it changes, until stopped or {@code --duration}. */
  private void printSummaryUntilStopped(KubernetesClient client, String clusterName,
      StopSignal stop, PrintStream err) throws InterruptedException {
    String table = summary(client, clusterName);
    err.print(table);
    long end = duration == null ? Long.MAX_VALUE : System.nanoTime() + duration.toNanos();
    while (System.nanoTime() < end) {
      long wait = Math.min(TimeUnit.SECONDS.toNanos(5), end - System.nanoTime());
      if (stop.await(Duration.ofNanos(wait))) {
        break;
      }
      String now = summary(client, clusterName);
      if (!now.equals(table)) {
        table = now;
        err.print(table);
      }
    }
  }

  /** The provisioned API server binaries, if present (then no download is attempted). */
  static Optional<Path> localBinaries() {
    Path k8s = Path.of(System.getProperty("user.home"), ".kubeapitest", "k8s");
    if (!Files.isDirectory(k8s)) {
      return Optional.empty();
    }
    try (Stream<Path> dirs = Files.list(k8s)) {
      return dirs.map(d -> d.resolve("kube-apiserver")).filter(Files::isExecutable).sorted()
          .reduce((a, b) -> b);
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  private static boolean everyTargetReported(KubernetesClient client) {
    return client.resources(KollectTarget.class).inAnyNamespace().list().getItems().stream()
        .allMatch(t -> t.getStatus() != null && t.getStatus().conditions() != null
            && !readyOf(t.getStatus().conditions()).equals("-"));
  }

  private static boolean connected(KollectOperator operator, String cluster) {
    return operator.engine().clusterHealth(cluster)
        .map(h -> h.state() == io.kollect.core.ClusterHealth.State.CONNECTED).orElse(false);
  }

  private static void printHowTo(PrintStream err, Path kubeconfig, Path edgeKubeconfig,
      Path tokenFile, InetSocketAddress http) {
    String kubectl = localBinaries().map(p -> p.resolveSibling("kubectl").toString())
        .orElse("kubectl");
    String base = "http://" + http.getHostString() + ":" + http.getPort();
    err.println();
    err.println("kollect demo is running. Records appear on standard output as JSON lines.");
    err.println();
    err.println("  Change something and watch the records:");
    err.println("    export KUBECONFIG=" + kubeconfig);
    err.println("    " + kubectl + " -n kollect-demo get deployments");
    err.println("    " + kubectl + " -n kollect-demo scale deployment checkout-api --replicas=5");
    err.println("    " + kubectl + " -n kollect-demo delete deployment inventory-worker");
    err.println("    " + kubectl + " get kollecttargets,kollectinventories -A");
    err.println();
    err.println("  The fleet: cluster " + EdgeCluster.NAME + " is a second API server, read by the "
        + "target kollect-demo/fleet-deployments:");
    err.println("    " + kubectl + " -n kollect-demo get kollectclusters");
    err.println("    " + kubectl + " --kubeconfig " + edgeKubeconfig
        + " -n kollect-demo scale deployment edge-gateway --replicas=6");
    err.println();
    err.println("  Read the inventory (token in " + tokenFile + "):");
    err.println("    curl -H \"Authorization: Bearer $(cat " + tokenFile + ")\" '" + base
        + "/inventory?kind=Deployment'");
    err.println("    curl -H \"Authorization: Bearer $(cat " + tokenFile + ")\" '" + base
        + "/inventory?cluster=" + EdgeCluster.NAME + "'");
    err.println("    curl " + base + "/metrics | grep kollect_");
    err.println();
    err.println("  Stop with Ctrl-C.");
    err.println();
  }

  /**
   * A table of every target (cluster, profile, readiness, object counts per type, last export),
   * then one of every KollectCluster (cluster name, readiness, reason, server version).
   */
  static String summary(KubernetesClient client, String localCluster) {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"TARGET", "CLUSTER", "PROFILE", "READY", "OBJECTS", "LAST EXPORT"});
    for (KollectTarget t : client.resources(KollectTarget.class).inAnyNamespace().list()
        .getItems()) {
      var status = t.getStatus();
      // A target naming clusters shows them once its status lists them.
      String clusters = t.getSpec() != null
          && (t.getSpec().clusterRef() != null || t.getSpec().clusterSelector() != null)
          ? "-" : localCluster;
      String ready = "-";
      String objects = "-";
      String last = "-";
      if (status != null) {
        if (status.conditions() != null) {
          ready = readyOf(status.conditions());
        }
        if (status.clusters() != null && !status.clusters().isEmpty()) {
          clusters = status.clusters().stream().map(c -> c.name()).sorted()
              .reduce((a, b) -> a + "," + b).orElse("-");
        }
        if (status.objectCounts() != null && !status.objectCounts().isEmpty()) {
          List<String> parts = new ArrayList<>();
          for (Map.Entry<String, Integer> e : status.objectCounts().entrySet()) {
            parts.add(e.getValue() + " " + e.getKey());
          }
          objects = String.join(", ", parts);
        }
        if (status.lastExportTime() != null) {
          last = status.lastExportTime();
        }
      }
      rows.add(new String[] {t.getMetadata().getNamespace() + "/" + t.getMetadata().getName(),
          clusters, t.getSpec() == null ? "-" : t.getSpec().profileRef(), ready, objects, last});
    }
    StringBuilder sb = new StringBuilder(table(rows));
    List<String[]> clusters = new ArrayList<>();
    clusters.add(new String[] {"KOLLECTCLUSTER", "CLUSTER", "READY", "REASON", "VERSION"});
    for (KollectCluster c : client.resources(KollectCluster.class).inAnyNamespace().list()
        .getItems()) {
      var status = c.getStatus();
      String reason = status == null || status.conditions() == null ? "-"
          : status.conditions().stream().filter(x -> "Ready".equals(x.getType()))
              .map(Condition::getReason).findFirst().orElse("-");
      clusters.add(new String[] {c.getMetadata().getNamespace() + "/" + c.getMetadata().getName(),
          status == null || status.clusterName() == null ? c.getMetadata().getName()
              : status.clusterName(),
          status == null || status.conditions() == null ? "-" : readyOf(status.conditions()),
          reason, status == null || status.serverVersion() == null ? "-" : status.serverVersion()});
    }
    if (clusters.size() > 1) {
      sb.append(table(clusters));
    }
    return sb.toString();
  }

  private static String readyOf(List<Condition> conditions) {
    return conditions.stream().filter(c -> "Ready".equals(c.getType()))
        .map(Condition::getStatus).findFirst().orElse("-");
  }

  static String table(List<String[]> rows) {
    int[] widths = new int[rows.get(0).length];
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    StringBuilder sb = new StringBuilder();
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        sb.append(i == row.length - 1 ? row[i] : String.format("%-" + (widths[i] + 2) + "s",
            row[i]));
      }
      sb.append('\n');
    }
    return sb.append('\n').toString();
  }
}
