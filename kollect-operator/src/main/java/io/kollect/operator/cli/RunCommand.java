package io.kollect.operator.cli;

import ch.qos.logback.classic.Level;
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
import io.kollect.operator.leader.LeaderElectionSettings;
import io.kollect.operator.LogSetup;
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

  @Option(names = "--leader-elect", arity = "0..1", paramLabel = "BOOL", defaultValue = "false",
      fallbackValue = "true",
      description = "Elect a leader on a Lease; only the leader exports and writes status (default: ${DEFAULT-VALUE}).")
  boolean leaderElect;

  @Option(names = "--leader-elect-lease-duration", paramLabel = "DURATION", defaultValue = "15s",
      converter = Converters.GoDuration.class,
      description = "How long standbys wait after the last renewal before taking over (default: ${DEFAULT-VALUE}).")
  Duration leaseDuration;

  @Option(names = "--leader-elect-renew-deadline", paramLabel = "DURATION", defaultValue = "10s",
      converter = Converters.GoDuration.class,
      description = "How long the leader tries to renew before giving up (default: ${DEFAULT-VALUE}).")
  Duration renewDeadline;

  @Option(names = "--leader-elect-retry-period", paramLabel = "DURATION", defaultValue = "2s",
      converter = Converters.GoDuration.class,
      description = "Wait between acquire/renew attempts (default: ${DEFAULT-VALUE}).")
  Duration retryPeriod;

  @Option(names = "--leader-elect-namespace", paramLabel = "NAMESPACE",
      description = "Namespace of the Lease and of the checkpoint ConfigMaps "
          + "(default: the pod's namespace in a cluster, else the kubeconfig's namespace).")
  String leaderElectNamespace;

  @Option(names = "--leader-elect-id", paramLabel = "NAME", defaultValue = "kollect-leader",
      description = "Name of the Lease (default: ${DEFAULT-VALUE}).")
  String leaderElectId;

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

  @Option(names = "--log-level", paramLabel = "LEVEL", defaultValue = "info",
      description = "trace, debug, info, warn or error (default: ${DEFAULT-VALUE}).")
  String logLevel;

  @Option(names = "--log-format", paramLabel = "FORMAT",
      description = "json or text (default: json in a cluster, text elsewhere).")
  LogSetup.Format logFormat;

  @Option(names = "--stdout",
      description = "Also print every target's records to standard output as JSON lines.")
  boolean stdout;

  @Option(names = "--checkpoint-dir", paramLabel = "DIR",
      description = "Keep export checkpoints in files here (default: ConfigMaps in the leader-election namespace).")
  Path checkpointDir;

  @Option(names = "--inventory-token-file", paramLabel = "FILE",
      description = "Bearer token that /inventory requires (re-read on each request).")
  Path inventoryTokenFile;

  @Option(names = "--inventory-auth", paramLabel = "MODE", defaultValue = "bearer",
      description = "bearer (default: /inventory needs --inventory-token-file, else it is off) or none (no authentication).")
  String inventoryAuth;

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

  @Option(names = "--default-service-account", paramLabel = "NAME", defaultValue = "default",
      description = "ServiceAccount (in the target's namespace) a KollectTarget reads as when it "
          + "sets no spec.serviceAccountName (default: ${DEFAULT-VALUE}).")
  String defaultServiceAccount;

  @Option(names = "--cluster-wide-namespaces", paramLabel = "NS", split = ",",
      description = "Targets in these namespaces are trusted: not checked against their "
          + "ServiceAccount (default: the operator's own namespace).")
  List<String> clusterWideNamespaces = List.of();

  @Option(names = "--digest-key-secret", paramLabel = "NAME",
      description = "Secret in the operator's namespace whose key 'key' keys the HMAC-SHA256 "
          + "digests of Secret values (default: no digests, key names and lengths only).")
  String digestKeySecret;

  @Option(names = "--digest-key-file", paramLabel = "FILE",
      description = "File holding the digest key, instead of --digest-key-secret.")
  Path digestKeyFile;

  @Option(names = "--circuit-breaker-failures", paramLabel = "N", defaultValue = "5",
      description = "Consecutive failed reconciles after which a target's circuit opens and it is "
          + "skipped for a growing cool-down; 0 turns the breaker off (default: ${DEFAULT-VALUE}).")
  int circuitBreakerFailures;

  @Option(names = "--circuit-breaker-max-cooldown", paramLabel = "DURATION", defaultValue = "10m",
      converter = Converters.GoDuration.class,
      description = "The longest cool-down of an open circuit (default: ${DEFAULT-VALUE}).")
  Duration circuitBreakerMaxCooldown;

  @Option(names = "--warn-objects-per-target", paramLabel = "N", defaultValue = "10000",
      description = "Objects past which a target reports the HighCardinality warning "
          + "(default: ${DEFAULT-VALUE}).")
  int warnObjectsPerTarget;

  @Option(names = "--cluster", paramLabel = "NAME=KUBECONFIG_FILE",
      description = "Also read the cluster of this kubeconfig file (trusted: exec plugins are "
          + "allowed); targets in trusted namespaces pick it with clusterRef: {name: NAME}. "
          + "Repeatable.")
  List<String> clusters = List.of();

  @Option(names = "--cluster-secret-namespaces", paramLabel = "NS", split = ",",
      description = "KollectClusters of any namespace may name Secrets of these namespaces "
          + "(secretRef.namespace), e.g. argocd for Argo CD cluster Secrets (default: none; a "
          + "KollectCluster reads Secrets of its own namespace).")
  List<String> clusterSecretNamespaces = List.of();

  @Option(names = "--allow-kubeconfig-exec",
      description = "Kubeconfigs from Secrets may run programs (exec, auth-provider) and read "
          + "the operator's files (tokenFile, certificate and key paths). Default: refused.")
  boolean allowKubeconfigExec;

  @Option(names = "--allow-insecure-kubeconfig-tls",
      description = "Kubeconfigs from Secrets may turn TLS verification off "
          + "(insecure-skip-tls-verify). Default: refused.")
  boolean allowInsecureKubeconfigTls;

  @Option(names = "--total-shards", paramLabel = "N",
      description = "Split the objects over N shards (replicas); this one exports only the "
          + "objects that hash to its --shard. Default: not split.")
  Integer totalShards;

  @Option(names = "--shard", paramLabel = "I",
      description = "This replica's shard, 0 to N-1 (with --total-shards).")
  Integer shard;

  @Option(names = "--shard-from-pod-name",
      description = "Take the shard from the ordinal of the pod name <statefulset>-<ordinal> "
          + "($POD_NAME, else the host name), for a StatefulSet.")
  boolean shardFromPodName;

  @Option(names = "--total-shards-from-statefulset", paramLabel = "NAME",
      description = "Take --total-shards from the spec.replicas of this StatefulSet in the "
          + "operator's namespace, read at start.")
  String totalShardsFromStatefulSet;

  @Option(names = "--duration", paramLabel = "DURATION", converter = Converters.GoDuration.class,
      description = "Stop after this long (default: run until interrupted).")
  Duration duration;

  @Override
  public Integer call() throws Exception {
    Level level = Level.toLevel(logLevel, null);
    if (level == null || !Set.of("trace", "debug", "info", "warn", "error")
        .contains(logLevel.toLowerCase())) {
      throw new BadInputException("--log-level: '" + logLevel + "' is not one of trace, debug, info, warn, error");
    }
    LogSetup.configure(level, logFormat == null ? LogSetup.defaultFormat() : logFormat,
        parent.err());
    InventoryAuth auth = inventoryAuth();
    ClusterSettings clusterSettings;
    try {
      clusterSettings = new ClusterSettings(Set.copyOf(clusterSecretNamespaces),
          allowKubeconfigExec, allowInsecureKubeconfigTls, ClusterSettings.clusterFiles(clusters));
      if (clusterSettings.files().containsKey(clusterName)) {
        throw new IllegalArgumentException("--cluster: '" + clusterName + "' is the operator's "
            + "own cluster (--cluster-name); choose another name");
      }
    } catch (IllegalArgumentException e) {
      throw new BadInputException(e.getMessage());
    }
    DigestKeySource digestKey = digestKeySource();
    GuardSettings guards;
    try {
      guards = new GuardSettings(circuitBreakerFailures, circuitBreakerMaxCooldown,
          warnObjectsPerTarget);
    } catch (IllegalArgumentException e) {
      throw new BadInputException(e.getMessage());
    }
    ShardFlags shardFlags = new ShardFlags(totalShards, shard, shardFromPodName,
        totalShardsFromStatefulSet);
    try {
      shardFlags.check();
    } catch (IllegalArgumentException e) {
      throw new BadInputException(e.getMessage());
    }
    if (checkpointDir != null && Files.exists(checkpointDir) && !Files.isDirectory(checkpointDir)) {
      throw new BadInputException("--checkpoint-dir: " + checkpointDir + " is not a directory");
    }
    KubernetesClient client;
    try {
      client = KubeClients.create(Optional.ofNullable(kubeconfig), Optional.ofNullable(context),
          qps, burst);
    } catch (IllegalArgumentException e) {
      throw new BadInputException(e.getMessage());
    } catch (KubernetesClientException e) {
      throw new BadInputException("cannot configure the API client: " + e.getMessage());
    }
    try (client) {
      String ns = leaderElectNamespace != null ? leaderElectNamespace : defaultNamespace(client);
      Shard shardOfThis;
      try {
        shardOfThis = shardFlags.resolve(podName(), name -> replicas(client, ns, name),
            leaderElect);
      } catch (IllegalArgumentException e) {
        throw new BadInputException(e.getMessage());
      } catch (KubernetesClientException e) {
        parent.err().println("kollect: --total-shards-from-statefulset: cannot read StatefulSet "
            + ns + "/" + totalShardsFromStatefulSet + ": " + e.getMessage());
        return 1;
      }
      LeaderElectionSettings election;
      OperatorConfig config;
      try {
        election = leaderElect
            ? new LeaderElectionSettings(true, ns, leaderElectId, identity(), leaseDuration,
                renewDeadline, retryPeriod)
            : LeaderElectionSettings.disabled();
        config = OperatorConfig.builder().clusterName(clusterName).workers(workers)
            .resyncPeriod(resyncPeriod).metricsAddress(metricsAddress).probeAddress(probeAddress)
            .leaderElection(election).includeNamespaces(Set.copyOf(namespaces))
            .excludeNamespaces(Set.copyOf(excludeNamespaces)).inventoryAuth(auth)
            .checkpointDir(Optional.ofNullable(checkpointDir)).operatorNamespace(ns)
            .stdoutRecords(stdout ? Optional.of(parent.out()) : Optional.empty())
            .statusWriteInterval(statusWriteInterval).watchLiveness(watchLiveness)
            .defaultServiceAccount(defaultServiceAccount)
            .clusterWideNamespaces(Set.copyOf(clusterWideNamespaces)).digestKey(digestKey)
            .listPageSize(listPageSize).clusterWideThreshold(clusterWideThreshold).guards(guards)
            .clusters(clusterSettings).shard(shardOfThis).build();
      } catch (IllegalArgumentException e) {
        throw new BadInputException(e.getMessage());
      }
      return runUntilStopped(client, config, duration, parent.err());
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

  private DigestKeySource digestKeySource() {
    try {
      if (digestKeySecret != null && digestKeyFile != null) {
        throw new IllegalArgumentException(
            "--digest-key-secret, --digest-key-file: give at most one of them");
      }
      if (digestKeySecret != null) {
        return DigestKeySource.secret(digestKeySecret);
      }
      return digestKeyFile == null ? DigestKeySource.none() : DigestKeySource.file(digestKeyFile);
    } catch (IllegalArgumentException e) {
      throw new BadInputException(e.getMessage(), e);
    }
  }

  private InventoryAuth inventoryAuth() {
    switch (inventoryAuth) {
      case "none":
        if (inventoryTokenFile != null) {
          throw new BadInputException("--inventory-token-file cannot be combined with --inventory-auth=none");
        }
        return InventoryAuth.none();
      case "bearer":
        if (inventoryTokenFile == null) {
          return InventoryAuth.disabled();
        }
        if (!Files.isReadable(inventoryTokenFile)) {
          throw new BadInputException("--inventory-token-file: " + inventoryTokenFile + " is not readable");
        }
        return InventoryAuth.tokenFile(inventoryTokenFile);
      default:
        throw new BadInputException("--inventory-auth: '" + inventoryAuth + "' is not one of bearer, none");
    }
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
