package io.kollect.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.kubernetes.api.model.LabelSelector;
import java.util.List;

/**
 * {@code KollectTarget.spec}.
 *
 * @param profileRef name of a KollectProfile
 * @param scope which objects; absent means every object of the profile's types
 * @param sinkRefs names of KollectSinks in the target's namespace
 * @param writeInventory also write the records to KollectInventory objects
 * @param serviceAccountName the ServiceAccount in the target's namespace whose read permissions
 *     bound what the target reads (default: the operator's {@code --default-service-account})
 * @param clusterRef one KollectCluster in the target's namespace to read instead of the
 *     operator's own cluster
 * @param clusterSelector every KollectCluster in the target's namespace whose labels match
 * @param suspend pause the target: nothing is read or exported, status says {@code Suspended}
 * @param limits caps on what the target exports
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record KollectTargetSpec(
    @Required @JsonPropertyDescription("Name of the (cluster-scoped) KollectProfile to apply.")
        String profileRef,
    @JsonPropertyDescription("Which objects; absent means every object of the profile's types.")
        TargetScopeSpec scope,
    @JsonPropertyDescription("Names of KollectSinks in this namespace that receive the records.")
        List<String> sinkRefs,
    @JsonPropertyDescription("Also keep the current records in KollectInventory objects in this namespace.")
        Boolean writeInventory,
    @Pattern("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
        @JsonPropertyDescription("ServiceAccount in this namespace whose list/watch permissions "
            + "bound what the target reads (default: the operator's --default-service-account).")
        String serviceAccountName,
    @JsonPropertyDescription("One KollectCluster in this namespace to read instead of the "
        + "operator's own cluster.")
        ClusterRef clusterRef,
    @JsonPropertyDescription("Every KollectCluster in this namespace whose labels match. With "
        + "neither clusterRef nor clusterSelector the target reads the operator's own cluster.")
        LabelSelector clusterSelector,
    @JsonPropertyDescription("Pause the target: nothing is read or exported until it is resumed.")
        Boolean suspend,
    @JsonPropertyDescription("Caps on what the target exports.") Limits limits) {

  /**
   * {@code spec.clusterRef}.
   *
   * @param name a KollectCluster in the target's namespace (or a cluster the operator was given
   *     with {@code --cluster NAME=FILE})
   * @param namespace the KollectCluster's namespace; only the target's own is allowed, any other
   *     is refused (condition on the target)
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record ClusterRef(@Required String name,
      @JsonPropertyDescription("Only the target's own namespace is allowed; another is refused.")
          String namespace) {

    public ClusterRef(String name) {
      this(name, null);
    }
  }

  /**
   * {@code spec.limits}.
   *
   * @param maxObjects export at most this many objects per cluster (and per shard), the first in
   *     key order; the rest are left out and the HighCardinality condition says how many
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Limits(
      @Min(1) @JsonPropertyDescription("Export at most this many objects per cluster (and per "
          + "shard): the first in key order (group/kind/namespace/name).")
          Integer maxObjects) {}

  /**
   * The spec without other clusters, suspend or limits (read by the local cluster, never
   * suspended).
   */
  public KollectTargetSpec(String profileRef, TargetScopeSpec scope, List<String> sinkRefs,
      Boolean writeInventory, String serviceAccountName) {
    this(profileRef, scope, sinkRefs, writeInventory, serviceAccountName, null, null, null, null);
  }

  /** The spec without a ServiceAccount (the operator's default). */
  public KollectTargetSpec(String profileRef, TargetScopeSpec scope, List<String> sinkRefs,
      Boolean writeInventory) {
    this(profileRef, scope, sinkRefs, writeInventory, null);
  }
}
