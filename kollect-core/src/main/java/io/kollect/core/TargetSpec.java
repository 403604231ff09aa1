package io.kollect.core;

import java.util.List;
import java.util.Objects;

/**
 * A target: which profile to apply to which objects, in which clusters, and where to send the
 * records.
 *
 * @param id identity
 * @param generation the spec's generation, echoed as {@link TargetStatus#observedGeneration()}
 * @param profileRef name of a profile given to the engine
 * @param scope which objects
 * @param sinkRefs names of sinks given to the engine
 * @param writeInventory also write the records to the engine's inventory sink (in-cluster
 *     inventory objects when the host provides one)
 * @param serviceAccount the ServiceAccount, in the target's namespace, whose read access bounds
 *     what the target sees when the engine checks access (see {@link
 *     KollectEngineBuilder#trustedNamespaces}); {@code null} means the engine's {@link
 *     KollectEngineBuilder#defaultServiceAccount default}. Applies to the engine's own cluster
 *     only: on a remote cluster the connection's credential is the boundary.
 * @param clusters the clusters the target reads, by name: the engine's own cluster ({@link
 *     KollectEngineBuilder#cluster}) or one its {@link ClusterConnections} can open. Empty means
 *     the engine's own cluster. Each (cluster, target) pair has its own records, export state and
 *     checkpoint; records carry the cluster's name.
 * @param suspend paused: nothing is read or exported and the status says {@code Suspended}; the
 *     export state stays so resuming sends only what changed meanwhile
 * @param maxObjects hard cap on exported objects per (cluster, target): the first {@code
 *     maxObjects} keys in key order are exported and the rest left out; {@code null} for no cap
 */
public record TargetSpec(
    TargetId id,
    long generation,
    String profileRef,
    TargetScope scope,
    List<String> sinkRefs,
    boolean writeInventory,
    String serviceAccount,
    List<String> clusters,
    boolean suspend,
    Integer maxObjects) {

  public TargetSpec {
    scope = scope == null ? TargetScope.everything() : scope;
    sinkRefs = sinkRefs == null ? List.of() : List.copyOf(sinkRefs);
    clusters = clusters == null ? List.of() : List.copyOf(clusters);
  }

  /** A target of the engine's own cluster, never suspended and without a cap. */
  public TargetSpec(TargetId id, long generation, String profileRef, TargetScope scope,
      List<String> sinkRefs, boolean writeInventory, String serviceAccount) {
    this(id, generation, profileRef, scope, sinkRefs, writeInventory, serviceAccount, List.of(),
        false, null);
  }

  /** A target read with the engine's default ServiceAccount. */
  public TargetSpec(TargetId id, long generation, String profileRef, TargetScope scope,
      List<String> sinkRefs, boolean writeInventory) {
    this(id, generation, profileRef, scope, sinkRefs, writeInventory, null);
  }

  /** Starts a spec of target {@code id} applying profile {@code profileRef}. */
  public static Builder builder(TargetId id, String profileRef) {
    return new Builder(id, profileRef);
  }

  /** This spec as a builder, to change a few parts. */
  public Builder toBuilder() {
    return new Builder(id, profileRef).generation(generation).scope(scope).sinkRefs(sinkRefs)
        .writeInventory(writeInventory).serviceAccount(serviceAccount).clusters(clusters)
        .suspend(suspend).maxObjects(maxObjects);
  }

  /** Builds a {@link TargetSpec}; everything but the id and profile has a default. */
  public static final class Builder {
    private final TargetId id;
    private final String profileRef;
    private long generation;
    private TargetScope scope = TargetScope.everything();
    private List<String> sinkRefs = List.of();
    private boolean writeInventory;
    private String serviceAccount;
    private List<String> clusters = List.of();
    private boolean suspend;
    private Integer maxObjects;

    private Builder(TargetId id, String profileRef) {
      this.id = Objects.requireNonNull(id, "id");
      this.profileRef = profileRef;
    }

    public Builder generation(long generation) {
      this.generation = generation;
      return this;
    }

    public Builder scope(TargetScope scope) {
      this.scope = scope;
      return this;
    }

    public Builder sinkRefs(List<String> sinkRefs) {
      this.sinkRefs = sinkRefs;
      return this;
    }

    public Builder writeInventory(boolean writeInventory) {
      this.writeInventory = writeInventory;
      return this;
    }

    public Builder serviceAccount(String serviceAccount) {
      this.serviceAccount = serviceAccount;
      return this;
    }

    public Builder clusters(List<String> clusters) {
      this.clusters = clusters;
      return this;
    }

    public Builder suspend(boolean suspend) {
      this.suspend = suspend;
      return this;
    }

    public Builder maxObjects(Integer maxObjects) {
      this.maxObjects = maxObjects;
      return this;
    }

    public TargetSpec build() {
      return new TargetSpec(id, generation, profileRef, scope, sinkRefs, writeInventory,
          serviceAccount, clusters, suspend, maxObjects);
    }
  }
}
