package io.kollect.core;

import io.kollect.extract.CompiledProfile;
import io.kollect.informers.ResourceType;
import java.util.Map;
import java.util.Set;

/**
 * What the last full pass decided, which delta passes reuse until the next full pass: the
 * profile, the resolved scope, the tenant boundary's answers, the sinks, whether it exported, and
 * the status it found (the base each delta's status is built on).
 *
 * @param compiled the profile version in use, {@code null} when there is none (deltas read
 *     nothing)
 * @param namespaces the resolved namespaces ({@code null} when unresolved)
 * @param access what the target may read per type (empty when nothing is read)
 * @param sinks the sinks records go to
 * @param exporting whether the full pass handed its set to the exporter
 * @param complete whether the full pass read the caches (its gate was open); only then does a
 *     status report extraction errors, deliveries and {@code Ready=True}
 * @param countTypes the types counted in the status even when they hold no object
 * @param statusBase the full pass's status before the parts a delta recomputes
 */
record PassContext(CompiledProfile compiled, NamespaceScope.NamespaceSet namespaces,
    Map<ResourceType, TenantBoundary.TypeAccess> access, Set<String> sinks, boolean exporting,
    boolean complete, Set<ResourceType> countTypes, StatusBuilder statusBase) {

  /** Whether delta passes may read objects (a profile and a scope are known). */
  boolean readable() {
    return compiled != null && namespaces != null && !access.isEmpty();
  }
}
