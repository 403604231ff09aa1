package io.kollect.core;

import java.util.List;

/**
 * A target: which profile to apply to which objects, and where to send the records.
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
 *     KollectEngine.Builder#trustedNamespaces}); {@code null} means the engine's {@link
 *     KollectEngine.Builder#defaultServiceAccount default}
 */
public record TargetSpec(
    TargetId id,
    long generation,
    String profileRef,
    TargetScope scope,
    List<String> sinkRefs,
    boolean writeInventory,
    String serviceAccount) {

  public TargetSpec {
    scope = scope == null ? TargetScope.everything() : scope;
    sinkRefs = sinkRefs == null ? List.of() : List.copyOf(sinkRefs);
  }

  /** A target read with the engine's default ServiceAccount. */
  public TargetSpec(TargetId id, long generation, String profileRef, TargetScope scope,
      List<String> sinkRefs, boolean writeInventory) {
    this(id, generation, profileRef, scope, sinkRefs, writeInventory, null);
  }
}
