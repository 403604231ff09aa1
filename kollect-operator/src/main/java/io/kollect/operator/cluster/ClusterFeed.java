package io.kollect.operator.cluster;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kollect.core.ClusterConnectionException;
import io.kollect.core.ClusterHealth;
import io.kollect.core.ClusterHealthListener;
import io.kollect.core.KollectEngine;
import io.kollect.operator.crd.KindWatch;
import io.kollect.operator.crd.KollectCluster;
import io.kollect.operator.crd.KollectClusterSpec;
import io.kollect.operator.crd.KollectTarget;
import io.kollect.operator.metrics.OperatorMetrics;
import io.kollect.operator.status.FeedContext;
import io.kollect.operator.status.ProblemReports;
import io.kollect.operator.status.StatusWriter;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * KollectClusters into the engine, and their status back out.
 *
 * <ul>
 *   <li>Watches KollectClusters ({@link KindWatch}) into the {@link ClusterCatalog}, and one watch
 *       per Secret they name (by field selector, so only those Secrets are held); re-resolves the
 *       targets whose clusters changed (a KollectCluster added, deleted, relabelled, renamed or
 *       losing a name clash) through {@code retarget}, as Profile and Sink changes do.
 *   <li>A Secret or spec change whose content differs from what a cluster's client was built from
 *       calls {@link KollectEngine#clusterChanged}: the engine rebuilds the client and converges
 *       without re-sending anything unchanged.
 *   <li>Status: the engine's health of the cluster while targets read it ({@link
 *       ClusterHealthListener}); otherwise one check of its credentials whenever it or its Secret
 *       changes (never on an interval). Written by the leader only; sharded, by the leader of
 *       the shard that owns the cluster's name only ({@link io.kollect.core.Shard#ownsCluster}).
 *   <li>Metrics {@code kollect_cluster_watches} and {@code kollect_cluster_ready} per cluster.
 * </ul>
 */
public final class ClusterFeed implements ClusterHealthListener, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ClusterFeed.class);

  private final KubernetesClient client;
  private final KollectEngine engine;
  private final ClusterCatalog catalog;
  private final TargetClusters targets;
  private final KollectClusterConnections connections;
  private final RemoteClients remote;
  private final StatusWriter status;
  private final ProblemReports problems;
  private final OperatorMetrics metrics;
  private final BooleanSupplier leader;
  private final Consumer<Predicate<KollectTarget>> retarget;
  private final Predicate<String> namespaceFilter;
  private final long resyncMillis;
  private final Clock clock;
  /** Credential checks and status writes of clusters, in order, off the informer threads. */
  private final ExecutorService checks = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "kollect-cluster-check");
    t.setDaemon(true);
    return t;
  });
  private final Map<String, ClusterStatuses.Check> checked = new ConcurrentHashMap<>();
  private final Map<String, SharedIndexInformer<Secret>> secretWatches = new HashMap<>();
  private final Set<String> metered = ConcurrentHashMap.newKeySet();
  private volatile KindWatch<KollectCluster> watch;
  private volatile boolean closed;
  /** KollectClusters cannot be listed: the operator runs without them. */
  private volatile boolean unavailable;

  /**
   * @param targets the clusters each target resolved to, to re-put only the targets whose
   *     clusters a KollectCluster change moves
   * @param retarget puts the matching targets into the engine again
   */
  public ClusterFeed(FeedContext context, ClusterCatalog catalog, TargetClusters targets,
      KollectClusterConnections connections, RemoteClients remote,
      Consumer<Predicate<KollectTarget>> retarget) {
    this.client = context.client();
    this.engine = context.engine();
    this.catalog = catalog;
    this.targets = targets;
    this.connections = connections;
    this.remote = remote;
    this.status = context.status();
    this.problems = context.problems();
    this.metrics = context.metrics();
    this.leader = context.leader();
    this.retarget = retarget;
    this.namespaceFilter = context.namespaceFilter();
    this.resyncMillis = context.resyncMillis();
    this.clock = context.clock();
  }

  /**
   * Starts the watch of KollectClusters; returns when their first list is in (so targets
   * resolve). When they cannot be listed (the CRD is not installed, or RBAC from before
   * KollectClusters), the operator goes on without them and says so once: targets can then read
   * the operator's own cluster and {@code --cluster} ones only.
   */
  public void start() {
    engine.addClusterHealthListener(this);
    watch = new KindWatch<>(client, KollectCluster.class, KollectClusterSpec.class, true,
        resyncMillis, new KindWatch.Handler<>() {
          @Override
          public void upsert(KollectCluster object) {
            onCluster(object);
          }

          @Override
          public void delete(HasMetadata object) {
            onClusterDeleted(object);
          }

          @Override
          public void unreadable(GenericKubernetesResource object, String problem) {
            problems.report(object, "NotUnderstood", KindWatch.describe(object),
                KindWatch.describe(object) + ": " + problem);
          }
        });
    try {
      watch.start().toCompletableFuture().get(2, TimeUnit.MINUTES);
    } catch (ExecutionException | TimeoutException e) {
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      while (cause.getCause() != null && cause.getCause() != cause
          && !(cause instanceof KubernetesClientException k && k.getCode() > 0)) {
        cause = cause.getCause();
      }
      String hint = cause instanceof KubernetesClientException k && k.getCode() == 404
          ? " (is the KollectCluster CRD installed? kubectl apply -k deploy/crds)"
          : cause instanceof KubernetesClientException k && k.getCode() == 403
              ? " (the operator's service account lacks list/watch on it: see deploy/rbac)" : "";
      log.warn("cannot list KollectClusters at {}: {}{}; going on without them: targets read the "
          + "operator's own cluster and --cluster ones only (restart once this is fixed)",
          client.getMasterUrl(), ProblemReports.firstLine(String.valueOf(cause.getMessage())),
          hint);
      watch.close();
      watch = null;
      unavailable = true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while listing KollectClusters", e);
    }
  }

  public boolean listed() {
    KindWatch<KollectCluster> w = watch;
    return unavailable || (w != null && w.hasSynced());
  }

  // ---- targets ---------------------------------------------------------------------------------

  /** Re-puts the targets whose clusters now resolve differently. */
  private void retargetChanged() {
    retarget.accept(targets::changed);
  }

  // ---- KollectClusters -------------------------------------------------------------------------

  void onCluster(KollectCluster cluster) {
    if (!namespaceFilter.test(cluster.getMetadata().getNamespace())) {
      return;
    }
    String key = ClusterCatalog.key(cluster);
    Optional<KollectCluster> before = catalog.get(key);
    Set<String> changed = catalog.put(cluster);
    boolean specChanged = before.isEmpty()
        || !java.util.Objects.equals(before.get().getSpec(), cluster.getSpec());
    if (specChanged) {
      changed.add(ClusterCatalog.clusterName(cluster));
    }
    syncSecretWatches();
    changed.forEach(this::clusterChanged);
    retargetChanged();
    reportAll();
    if (specChanged) {
      checked.remove(key);
      check(key);
    }
  }

  void onClusterDeleted(HasMetadata cluster) {
    String ns = cluster.getMetadata().getNamespace();
    String name = cluster.getMetadata().getName();
    Set<String> changed = catalog.remove(ns, name);
    checked.remove(ClusterCatalog.key(ns, name));
    syncSecretWatches();
    changed.forEach(this::clusterChanged);
    retargetChanged();
    reportAll();
  }

  private void clusterChanged(String cluster) {
    try {
      engine.clusterChanged(cluster);
    } catch (IllegalStateException e) {
      // The engine is closing.
    }
  }

  // ---- Secrets ---------------------------------------------------------------------------------

  /** One watch per Secret the KollectClusters name; a Secret no longer named is unwatched. */
  private synchronized void syncSecretWatches() {
    if (closed) {
      return;
    }
    Set<String> wanted = catalog.secrets();
    secretWatches.entrySet().removeIf(e -> {
      if (!wanted.contains(e.getKey())) {
        e.getValue().close();
        return true;
      }
      return false;
    });
    for (String key : wanted) {
      if (!secretWatches.containsKey(key)) {
        String[] p = key.split("/", 2);
        SharedIndexInformer<Secret> informer = client.secrets().inNamespace(p[0])
            .withField("metadata.name", p[1]).inform(new ResourceEventHandler<>() {
              @Override
              public void onAdd(Secret obj) {
                onSecret(p[0], p[1], obj);
              }

              @Override
              public void onUpdate(Secret oldObj, Secret newObj) {
                onSecret(p[0], p[1], newObj);
              }

              @Override
              public void onDelete(Secret obj, boolean deletedFinalStateUnknown) {
                onSecret(p[0], p[1], null);
              }
            }, 0);
        secretWatches.put(key, informer);
      }
    }
  }

  /**
   * A named Secret was added, changed or deleted: clusters whose client was built from other
   * content are rebuilt; clusters no target reads are checked again.
   */
  private void onSecret(String namespace, String name, Secret secret) {
    try {
      for (String cluster : catalog.readingSecret(namespace, name)) {
        if (connections.changedSince(cluster, secret)) {
          if (engine.clusterHealth(cluster).isPresent()) {
            log.info("Secret {}/{} of cluster {} changed: reconnecting", namespace, name, cluster);
          }
          clusterChanged(cluster);
        }
      }
      for (String key : catalog.clustersOfSecret(namespace, name)) {
        checked.remove(key);
        check(key);
      }
    } catch (RuntimeException e) {
      log.warn("Secret {}/{}: handling its change failed: {}", namespace, name, e.toString());
    }
  }

  // ---- status ----------------------------------------------------------------------------------

  @Override
  public void onHealth(ClusterHealth health) {
    if (metered.add(health.cluster())) {
      metrics.cluster(health.cluster(), () -> engine.clusterHealth(health.cluster()));
    }
    catalog.holder(health.cluster()).ifPresent(key -> checks.execute(() -> report(key)));
  }

  @Override
  public void onReleased(String cluster) {
    connections.forget(cluster);
    if (metered.remove(cluster)) {
      metrics.clusterRemoved(cluster);
    }
    catalog.holder(cluster).ifPresent(key -> {
      checked.remove(key);
      check(key);
    });
  }

  /**
   * Checks a cluster's credentials when no target reads it (the engine's health says more
   * while one does): the kubeconfig policy, then one {@code /version} request.
   */
  private void check(String key) {
    if (closed) {
      return;
    }
    checks.execute(() -> {
      Optional<KollectCluster> cluster = catalog.get(key);
      if (cluster.isEmpty()) {
        return;
      }
      if (catalog.problem(key).isEmpty() && engineHealth(cluster.get()).isEmpty()
          && writesStatusOf(cluster.get())) {
        checked.put(key, checkNow(cluster.get()));
      }
      report(key);
    });
  }

  private ClusterStatuses.Check checkNow(KollectCluster cluster) {
    KollectClusterConnections.Resolved resolved;
    try {
      resolved = connections.resolve(ClusterCatalog.source(cluster));
    } catch (ClusterConnectionException e) {
      return new ClusterStatuses.Check(false, e.reason(), e.getMessage(), null, clock.instant());
    }
    try (KubernetesClient probe = remote.client(resolved.config())) {
      String version = probe.getKubernetesVersion().getGitVersion();
      return new ClusterStatuses.Check(true, "Connected", "credentials accepted by the API "
          + "server (no target reads this cluster yet)", version, clock.instant());
    } catch (KubernetesClientException e) {
      String reason = e.getCode() == 401 ? "Unauthorized" : e.getCode() == 403 ? "Forbidden"
          : "Unreachable";
      String message = e.getCode() == 401 ? "the API server rejects the credentials (401)"
          : e.getCode() == 403 ? "the credentials may not read the API server's version (403)"
          : "cannot reach the API server: " + ProblemReports.firstLine(rootMessage(e));
      return new ClusterStatuses.Check(false, reason, message, null, clock.instant());
    } catch (RuntimeException e) {
      return new ClusterStatuses.Check(false, "Unreachable", "cannot reach the API server: "
          + ProblemReports.firstLine(rootMessage(e)), null, clock.instant());
    }
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
  }

  private Optional<ClusterHealth> engineHealth(KollectCluster cluster) {
    String name = ClusterCatalog.clusterName(cluster);
    if (!catalog.holder(name).map(ClusterCatalog.key(cluster)::equals).orElse(false)) {
      return Optional.empty();
    }
    return engine.clusterHealth(name);
  }

  /** Whether this shard writes the KollectCluster's status ({@link ClusterStatuses#writtenBy}). */
  private boolean writesStatusOf(KollectCluster cluster) {
    return ClusterStatuses.writtenBy(engine.shard(), ClusterCatalog.clusterName(cluster));
  }

  /** Writes every KollectCluster's status (a new leader; after a change of names). */
  public void reportAll() {
    for (KollectCluster c : catalog.all()) {
      String key = ClusterCatalog.key(c);
      checks.execute(() -> report(key));
    }
  }

  /** Logs a problem once, and writes the status on the leader. */
  private void report(String key) {
    KindWatch<KollectCluster> w = watch;
    if (w == null || closed) {
      return;
    }
    Optional<KollectCluster> cluster = w.get(key);
    if (cluster.isEmpty()) {
      return;
    }
    ClusterCatalog.Problem problem = catalog.problem(key).orElse(null);
    problems.report(cluster.get(), "InvalidCluster", "KollectCluster " + key,
        problem == null ? null : "KollectCluster " + key + ": " + problem.reason() + ": "
            + problem.message());
    if (!leader.getAsBoolean() || !writesStatusOf(cluster.get())) {
      return;
    }
    ClusterHealth health = problem == null ? engineHealth(cluster.get()).orElse(null) : null;
    w.cached(key).ifPresent(cached -> status.write(cached, ClusterStatuses.status(cluster.get(),
        problem, health, checked.get(key), clock.instant())));
  }

  @Override
  public void close() {
    closed = true;
    KindWatch<KollectCluster> w = watch;
    if (w != null) {
      w.close();
    }
    synchronized (this) {
      secretWatches.values().forEach(SharedIndexInformer::close);
      secretWatches.clear();
    }
    checks.shutdownNow();
  }
}
