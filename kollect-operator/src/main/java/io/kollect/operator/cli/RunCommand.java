package io.kollect.operator.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.kollect.core.Shard;
import io.kollect.operator.KollectOperator;
import io.kollect.operator.OperatorConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.OptionalInt;
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

  // One mixin per feature, each making that feature's settings: a new flag touches one of them.
  @Mixin ClientOptions api;

  @Mixin ClusterOptions clusters;

  @Mixin HttpOptions http;

  @Mixin LeaderElectionOptions leaderElection;

  @Mixin ReconcileOptions reconcile;

  @Mixin WatchOptions watch;

  @Mixin NamespaceOptions namespaces;

  @Mixin LogOptions logging;

  @Mixin ExportOptions export;

  @Mixin TenancyOptions tenancy;

  @Mixin DigestKeyOptions digestKey;

  @Mixin GuardOptions guards;

  @Mixin ShardOptions sharding;

  @Option(names = "--duration", paramLabel = "DURATION", converter = Converters.GoDuration.class,
      description = "Stop after this long (default: run until interrupted).")
  Duration duration;

  @Override
  public Integer call() throws Exception {
    // Everything that can be checked offline is, before connecting: bad input exits 2.
    logging.configure(parent.err());
    OperatorConfig.Builder config = OperatorConfig.builder().clusters(clusters.settings())
        .http(http.settings()).reconcile(reconcile.settings()).watch(watch.settings())
        .namespaces(namespaces.scope()).export(export.settings(parent.out()))
        .tenancy(tenancy.settings()).digestKey(digestKey.source()).guards(guards.settings());
    ShardFlags shardFlags = sharding.flags();
    KubernetesClient client = api.client();
    try (client) {
      String ns = leaderElection.namespace() != null ? leaderElection.namespace()
          : defaultNamespace(client);
      Shard shardOfThis;
      try {
        shardOfThis = shardFlags.resolve(podName(), name -> replicas(client, ns, name),
            leaderElection.enabled());
        config.operatorNamespace(ns).shard(shardOfThis)
            .leaderElection(leaderElection.settings(ns, identity()));
      } catch (IllegalArgumentException e) {
        throw new BadInputException(e.getMessage());
      } catch (KubernetesClientException e) {
        parent.err().println("kollect: --total-shards-from-statefulset: cannot read StatefulSet "
            + ns + "/" + shardFlags.totalFromStatefulSet() + ": " + e.getMessage());
        return 1;
      }
      return runUntilStopped(client, config.build(), duration, parent.err());
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
