package io.kollect.operator.cli;

import ch.qos.logback.classic.Level;
import io.fabric8.kubeapitest.KubeAPIServer;
import io.fabric8.kubeapitest.KubeAPIServerConfigBuilder;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kollect.operator.BindAddress;
import io.kollect.operator.InventoryAuth;
import io.kollect.operator.KollectOperator;
import io.kollect.operator.LeaderElectionSettings;
import io.kollect.operator.LogSetup;
import io.kollect.operator.OperatorConfig;
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
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code kollect demo}: the whole product on a laptop with no cluster. Starts a real local API
 * server, installs the CRDs and the sample catalog, runs the operator's engine and serves the
 * inventory, until Ctrl-C or {@code --duration}.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Start a local Kubernetes API server with the Kollect CRDs and sample catalog, run the "
          + "operator against it and show the inventory. Edit objects with the kubeconfig it "
          + "writes and watch the records change.",
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

  @Override
  public Integer call() throws Exception {
    PrintStream out = parent.out();
    PrintStream err = parent.err();
    LogSetup.configure(Level.toLevel(logLevel, Level.WARN), LogSetup.Format.text, err);
    Files.createDirectories(dir);
    Path kubeconfigFile = dir.resolve("kubeconfig").toAbsolutePath();
    Path tokenFile = dir.resolve("inventory-token").toAbsolutePath();
    byte[] secret = new byte[24];
    new SecureRandom().nextBytes(secret);
    String token = HexFormat.of().formatHex(secret);
    Files.writeString(tokenFile, token + "\n");

    Optional<Path> binaries = localBinaries();
    err.println("kollect demo: starting a local Kubernetes API server"
        + binaries.map(b -> " (" + b.getParent().getFileName() + ")").orElse(" (downloading binaries)")
        + " ...");
    KubeAPIServer apiServer = new KubeAPIServer(KubeAPIServerConfigBuilder.anAPIServerConfig()
        .withOfflineMode(binaries.isPresent())
        .build());
    StopSignal stop = new StopSignal("kollect-demo-shutdown");
    apiServer.start();
    KollectOperator operator = null;
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
        OperatorConfig config = new OperatorConfig("demo", 2, Duration.ofHours(10),
            inventoryAddress, BindAddress.off(), LeaderElectionSettings.disabled(), Set.of(),
            Set.of(), InventoryAuth.tokenFile(tokenFile), Optional.empty(), "default", Optional.of(out))
            // One demo cluster, a handful of targets: statuses follow changes within a second.
            .withStatusWriteInterval(Duration.ofSeconds(1));
        operator = new KollectOperator(client, config);
        try {
          operator.start();
        } catch (java.net.BindException e) {
          throw new BadInputException("--inventory-address: " + e.getMessage()
              + " (another program uses it; try --inventory-address 127.0.0.1:0)");
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!operator.isReady() && System.nanoTime() < deadline) {
          Thread.sleep(200);
        }
        operator.engine().awaitIdle(Duration.ofSeconds(20));
        InetSocketAddress http = operator.metricsAddress().orElseThrow();
        printHowTo(err, kubeconfigFile, tokenFile, http);
        String table = summary(client);
        err.print(table);
        long end = duration == null ? Long.MAX_VALUE : System.nanoTime() + duration.toNanos();
        while (System.nanoTime() < end) {
          long wait = Math.min(TimeUnit.SECONDS.toNanos(5), end - System.nanoTime());
          if (stop.await(Duration.ofNanos(wait))) {
            break;
          }
          String now = summary(client);
          if (!now.equals(table)) {
            table = now;
            err.print(table);
          }
        }
        err.println("kollect demo: stopping");
        operator.close();
        operator = null;
      }
    } finally {
      if (operator != null) {
        operator.close();
      }
      apiServer.stop();
      stop.close();
    }
    return 0;
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

  private static void printHowTo(PrintStream err, Path kubeconfig, Path tokenFile,
      InetSocketAddress http) {
    String kubectl = localBinaries().map(p -> p.resolveSibling("kubectl").toString()).orElse("kubectl");
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
    err.println("  Read the inventory (token in " + tokenFile + "):");
    err.println("    curl -H \"Authorization: Bearer $(cat " + tokenFile + ")\" '" + base
        + "/inventory?kind=Deployment'");
    err.println("    curl " + base + "/metrics | grep kollect_");
    err.println();
    err.println("  Stop with Ctrl-C.");
    err.println();
  }

  /** A table of every target: profile, readiness, object counts per type, last export. */
  static String summary(KubernetesClient client) {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"TARGET", "PROFILE", "READY", "OBJECTS", "LAST EXPORT"});
    for (KollectTarget t : client.resources(KollectTarget.class).inAnyNamespace().list().getItems()) {
      var status = t.getStatus();
      String ready = "-";
      String objects = "-";
      String last = "-";
      if (status != null) {
        if (status.conditions() != null) {
          ready = status.conditions().stream().filter(c -> "Ready".equals(c.getType()))
              .map(Condition::getStatus).findFirst().orElse("-");
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
          t.getSpec() == null ? "-" : t.getSpec().profileRef(), ready, objects, last});
    }
    int[] widths = new int[5];
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    StringBuilder sb = new StringBuilder();
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        sb.append(i == row.length - 1 ? row[i] : String.format("%-" + (widths[i] + 2) + "s", row[i]));
      }
      sb.append('\n');
    }
    return sb.append('\n').toString();
  }
}
