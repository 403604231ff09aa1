package io.kollect.operator.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.kollect.core.Shard;
import io.kollect.operator.http.BindAddress;
import io.kollect.operator.cluster.ClusterSettings;
import io.kollect.operator.DigestKeySource;
import io.kollect.operator.http.InventoryAuth;
import io.kollect.operator.KollectOperator;
import io.kollect.operator.KubeClients;
import io.kollect.operator.GuardSettings;
import io.kollect.operator.OperatorConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code kollect run}: the operator. */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Run the Kollect operator: watch KollectProfiles, KollectTargets and KollectSinks, keep each "
          + "target's inventory current and export only what changed.",
      "Records go to the targets' sinks (and with --stdout to standard output as JSON lines); "
          + "logs go to standard error."
    })
final class RunCommand implements Callable<Integer> {

  private static final Logger log = LoggerFactory.getLogger(RunCommand.class);
  private static final Path SERVICE_ACCOUNT_NAMESPACE =
      Path.of("/var/run/secrets/kubernetes.io/serviceaccount/namespace");

  @ParentCommand KollectCommand parent;

  @Option(names = "--kubeconfig", paramLabel = "FILE",
      description = "Kubeconfig to use. Default: $KUBECONFIG, ~/.kube/config, else the in-cluster service account.")
  Path kubeconfig;

  @Option(names = "--context", paramLabel = "NAME",
      description = "Kubeconfig context (default: current).")
  String context;

  @Option(names = "--cluster-name", paramLabel = "NAME", defaultValue = "default",
      description = "Cluster name written into every record (default: ${DEFAULT-VALUE}).")
  String clusterName;

  @Option(names = "--metrics-bind-address", paramLabel = "ADDR", defaultValue = ":8080",
      converter = Converters.Address.class,
      description = "Serve /metrics and /inventory here; 0 turns it off (default: ${DEFAULT-VALUE}).")
  BindAddress metricsAddress;

  @Option(names = "--health-probe-bind-address", paramLabel = "ADDR", defaultValue = ":8081",
      converter = Converters.Address.class,
      description = "Serve /healthz and /readyz here; 0 turns it off (default: ${DEFAULT-VALUE}).")
  BindAddress probeAddress;

  @Mixin LeaderElectionOptions leaderElection;

  @Option(names = "--workers", paramLabel = "N", defaultValue = "2",
      description = "Reconcile worker threads (default: ${DEFAULT-VALUE}).")
  int workers;

  @Option(names = "--resync-period", paramLabel = "DURATION", defaultValue = "10h",
      converter = Converters.GoDuration.class,
      description = "Informer resync, a correctness backstop only; 0s turns it off (default: ${DEFAULT-VALUE}).")
  Duration resyncPeriod;

  @Option(names = "--namespaces", paramLabel = "NS", split = ",",
      description = "Only read objects and Kollect resources in these namespaces (default: all).")
  List<String> namespaces = List.of();

  @Option(names = "--exclude-namespaces", paramLabel = "NS", split = ",",
      description = "Never read objects or Kollect resources in these namespaces.")
  List<String> excludeNamespaces = List.of();

  @Option(names = "--kube-api-qps", paramLabel = "QPS", defaultValue = KubeClients.DEFAULT_QPS_FLAG,
      description = "Client-side limit of API requests per second (default: ${DEFAULT-VALUE}).")
  double qps;

  @Option(names = "--kube-api-burst", paramLabel = "N",
      defaultValue = KubeClients.DEFAULT_BURST_FLAG,
      description = "Client-side burst of API requests (default: ${DEFAULT-VALUE}).")
  int burst;

  @Option(names = "--list-page-size", paramLabel = "N", defaultValue = "500",
      description = "Objects per page when an informer lists a type; a list is never held whole "
          + "(default: ${DEFAULT-VALUE}).")
  int listPageSize;

  @Option(names = "--informer-cluster-wide-threshold", paramLabel = "N", defaultValue = "8",
      description = "Past this many namespaces read of one type, one cluster-wide informer serves "
          + "it instead of one per namespace, when the operator may list it cluster-wide "
          + "(default: ${DEFAULT-VALUE}).")
  int clusterWideThreshold;

  @Mixin LogOptions logging;

  @Option(names = "--stdout",
      description = "Also print every target's records to standard output as JSON lines.")
  boolean stdout;

  @Option(names = "--checkpoint-dir", paramLabel = "DIR",
      description = "Keep export checkpoints in files here (default: ConfigMaps in the leader-election namespace).")
  Path checkpointDir;

  @Mixin InventoryAuthOptions inventory;

  @Option(names = "--status-write-interval", paramLabel = "DURATION", defaultValue = "10s",
      converter = Converters.GoDuration.class,
      description = "Write a target's status at most once per this interval; changes in between "
          + "are coalesced (default: ${DEFAULT-VALUE}).")
  Duration statusWriteInterval;

  @Option(names = "--watch-liveness", paramLabel = "DURATION", defaultValue = "60s",
      converter = Converters.GoDuration.class,
      description = "A watch or request silent for longer is replaced; bounds how long a dead "
          + "connection goes unnoticed (default: ${DEFAULT-VALUE}).")
  Duration watchLiveness;

  @Mixin TenancyOptions tenancy;

  @Mixin DigestKeyOptions digestKey;

  @Mixin GuardOptions guards;

  @Mixin ClusterOptions clusters;

  @Mixin ShardOptions sharding;

  @Option(names = "--duration", paramLabel = "DURATION", converter = Converters.GoDuration.class,
      description = "Stop after this long (default: run until interrupted).")
  Duration duration;

  @Override
  public Integer call() throws Exception {
    // Everything that can be checked offline is, before connecting: bad input exits 2.
    logging.configure(parent.err());
    InventoryAuth auth = inventory.auth();
    ClusterSettings clusterSettings = clusters.settings(clusterName);
    DigestKeySource digestKeySource = digestKey.source();
    GuardSettings guardSettings = guards.settings();
    ShardFlags shardFlags = sharding.flags();
    if (checkpointDir != null && Files.exists(checkpointDir) && !Files.isDirectory(checkpointDir)) {
      throw new BadInputException("--checkpoint-dir: " + checkpointDir + " is not a directory");
    }
    KubernetesClient client = client();
    try (client) {
      String ns = leaderElection.namespace() != null ? leaderElection.namespace()
          : defaultNamespace(client);
      Shard shardOfThis;
      try {
        shardOfThis = shardFlags.resolve(podName(), name -> replicas(client, ns, name),
            leaderElection.enabled());
      } catch (IllegalArgumentException e) {
        throw new BadInputException(e.getMessage());
      } catch (KubernetesClientException e) {
        parent.err().println("kollect: --total-shards-from-statefulset: cannot read StatefulSet "
            + ns + "/" + shardFlags.totalFromStatefulSet() + ": " + e.getMessage());
        return 1;
      }
      OperatorConfig config;
      try {
        config = OperatorConfig.builder().clusterName(clusterName).workers(workers)
            .resyncPeriod(resyncPeriod).metricsAddress(metricsAddress).probeAddress(probeAddress)
            .leaderElection(leaderElection.settings(ns, identity()))
            .includeNamespaces(Set.copyOf(namespaces))
            .excludeNamespaces(Set.copyOf(excludeNamespaces)).inventoryAuth(auth)
            .checkpointDir(Optional.ofNullable(checkpointDir)).operatorNamespace(ns)
            .stdoutRecords(stdout ? Optional.of(parent.out()) : Optional.empty())
            .statusWriteInterval(statusWriteInterval).watchLiveness(watchLiveness)
            .tenancy(tenancy.defaultServiceAccount(), tenancy.clusterWideNamespaces())
            .digestKey(digestKeySource).listPageSize(listPageSize)
            .clusterWideThreshold(clusterWideThreshold).guards(guardSettings)
            .clusters(clusterSettings).shard(shardOfThis).build();
      } catch (IllegalArgumentException e) {
        throw new BadInputException(e.getMessage());
      }
      return runUntilStopped(client, config, duration, parent.err());
    }
  }

  /** The API client of {@code --kubeconfig}/{@code --context}, limited as the flags say. */
  private KubernetesClient client() {
    try {
      return KubeClients.create(Optional.ofNullable(kubeconfig), Optional.ofNullable(context),
          qps, burst);
    } catch (IllegalArgumentException e) {
      throw new BadInputException(e.getMessage());
    } catch (KubernetesClientException e) {
      throw new BadInputException("cannot configure the API client: " + e.getMessage());
    }
  }

  /** Runs an operator until interrupted, a shutdown signal, or {@code duration}. */
  static int runUntilStopped(KubernetesClient client, OperatorConfig config, Duration duration,
      PrintStream errStream) throws IOException {
    KollectOperator operator;
    try {
      operator = new KollectOperator(client, config);
    } catch (IllegalStateException | IllegalArgumentException e) {
      // E.g. the digest key Secret is missing: one line naming it, exit 1.
      errStream.println("kollect: " + e.getMessage());
      return 1;
    }
    StopSignal stop = new StopSignal("kollect-shutdown");
    try {
      operator.start();
      log.info("kollect running (cluster {}, leader election {}{})", config.clusterName(),
          config.leaderElection().enabled() ? "on" : "off",
          config.shard().sharded() ? ", shard " + config.shard() : "");
      if (duration == null) {
        stop.await();
      } else {
        stop.await(duration);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.net.BindException e) {
      throw new BadInputException("cannot listen: " + e.getMessage());
    } catch (IllegalStateException e) {
      // Could not start (API server unreachable, CRDs missing, forbidden): one line, exit 1.
      log.debug("start failed", e);
      PrintStream err = errStream;
      err.println("kollect: " + e.getMessage());
      return 1;
    } finally {
      log.info("kollect stopping");
      operator.close();
      stop.close();
    }
    return 0;
  }

  private static String defaultNamespace(KubernetesClient client) {
    try {
      if (Files.isReadable(SERVICE_ACCOUNT_NAMESPACE)) {
        return Files.readString(SERVICE_ACCOUNT_NAMESPACE).strip();
      }
    } catch (IOException ignored) {
      // fall through to the kubeconfig's namespace
    }
    String ns = client.getNamespace();
    return ns == null || ns.isBlank() ? "default" : ns;
  }

  /** {@code $POD_NAME} (the downward API), else the host name. */
  private static String podName() {
    String pod = System.getenv("POD_NAME");
    if (pod != null && !pod.isBlank()) {
      return pod;
    }
    try {
      return System.getenv().getOrDefault("HOSTNAME", InetAddress.getLocalHost().getHostName());
    } catch (IOException e) {
      return null;
    }
  }

  /** A StatefulSet's {@code spec.replicas}; empty when it does not exist. */
  private static OptionalInt replicas(KubernetesClient client, String namespace, String name) {
    StatefulSet set = client.apps().statefulSets().inNamespace(namespace).withName(name).get();
    if (set == null) {
      return OptionalInt.empty();
    }
    Integer n = set.getSpec() == null ? null : set.getSpec().getReplicas();
    return OptionalInt.of(n == null ? 1 : n); // unset replicas default to 1
  }

  private static String identity() {
    String host;
    try {
      host = System.getenv().getOrDefault("HOSTNAME", InetAddress.getLocalHost().getHostName());
    } catch (IOException e) {
      host = "kollect";
    }
    return host + "_" + UUID.randomUUID();
  }

}
