package io.kollect.operator.cluster;

import io.fabric8.kubernetes.api.model.Condition;
import io.kollect.core.ClusterHealth;
import io.kollect.core.Shard;
import io.kollect.operator.crd.KollectCluster;
import io.kollect.operator.crd.KollectClusterStatus;
import io.kollect.operator.targets.CrTranslation;
import java.time.Instant;
import java.util.List;

/**
 * The status of a KollectCluster from what the operator knows of it, in this order: a problem of
 * the object itself (invalid spec, refused Secret namespace, a clusterName clash), else the
 * engine's health of its connection while targets read it, else the last check of its
 * credentials ({@link Check}). Pure functions; never a credential in any field.
 */
final class ClusterStatuses {

  /** Reason while the credentials have not been checked yet. */
  static final String REASON_CHECKING = "Checking";

  private ClusterStatuses() {}

  /**
   * One check of a cluster's credentials (kubeconfig policy, then one {@code /version} request),
   * made when the KollectCluster or its Secret changes while no target reads it.
   *
   * @param ready whether the request succeeded
   * @param reason {@code Connected}, {@code Unreachable}, {@code Unauthorized}, {@code Forbidden}
   *     or {@code InvalidKubeConfig}
   * @param message what is wrong, or a short summary
   * @param serverVersion the server's version, when read
   * @param at when the check ran
   */
  record Check(boolean ready, String reason, String message, String serverVersion, Instant at) {}

  /**
   * Whether {@code shard} writes the status of the cluster named {@code clusterName}: the shard
   * that owns the name ({@link Shard#ownsCluster}), under either rule, so shards never overwrite
   * each other's view of a cluster. Split by cluster it is the only shard that connects to the
   * cluster; the others neither check its credentials nor write. Unsharded, always.
   */
  static boolean writtenBy(Shard shard, String clusterName) {
    return shard.ownsCluster(clusterName);
  }

  static KollectClusterStatus status(KollectCluster cluster, ClusterCatalog.Problem problem,
      ClusterHealth health, Check check, Instant now) {
    long generation = cluster.getMetadata().getGeneration() == null ? 0
        : cluster.getMetadata().getGeneration();
    List<Condition> previous = cluster.getStatus() == null || cluster.getStatus().conditions() == null
        ? List.of() : cluster.getStatus().conditions();
    KollectClusterStatus before = cluster.getStatus();
    String name = ClusterCatalog.clusterName(cluster);
    if (problem != null) {
      return new KollectClusterStatus(generation, List.of(
          CrTranslation.kept(previous, "Ready", "False", problem.reason(), problem.message(), now,
              generation)), null, null, null, name);
    }
    if (health != null) {
      String last = health.lastConnected() == null
          ? (before == null ? null : before.lastConnectedTime())
          : CrTranslation.rfc3339(health.lastConnected());
      return new KollectClusterStatus(generation, List.of(CrTranslation.kept(previous, "Ready",
          health.ready() ? "True" : "False", health.reason(), health.message(), now, generation)),
          health.serverVersion() != null ? health.serverVersion()
              : before == null ? null : before.serverVersion(),
          health.watchedTypes(), last, name);
    }
    if (check == null) {
      return new KollectClusterStatus(generation, List.of(CrTranslation.kept(previous, "Ready",
          "Unknown", REASON_CHECKING, "checking the credentials", now, generation)),
          null, null, null, name);
    }
    String last = check.ready() ? CrTranslation.rfc3339(check.at())
        : before == null ? null : before.lastConnectedTime();
    return new KollectClusterStatus(generation, List.of(CrTranslation.kept(previous, "Ready",
        check.ready() ? "True" : "False", check.reason(), check.message(), now, generation)),
        check.serverVersion(), List.of(), last, name);
  }
}
