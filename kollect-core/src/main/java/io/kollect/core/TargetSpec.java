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
 */
public record TargetSpec(
    TargetId id,
    long generation,
    String profileRef,
    TargetScope scope,
    List<String> sinkRefs,
    boolean writeInventory) {

  public TargetSpec {
    scope = scope == null ? TargetScope.everything() : scope;
    sinkRefs = sinkRefs == null ? List.of() : List.copyOf(sinkRefs);
  }
}
