package io.kollect.core;

import io.kollect.informers.LeaseStatus;
import io.kollect.informers.ResourceType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * What a target may see through the engine: nothing its ServiceAccount may not list and watch.
 *
 * <p>The engine's own client usually reads far more than any tenant may (cluster-wide). A target
 * outside the trusted namespaces is therefore bounded by its ServiceAccount: for each resource
 * type of its profile, an all-namespaces scope is allowed when the ServiceAccount may read
 * cluster-wide, else namespace by namespace; an explicit namespace set is checked namespace by
 * namespace. This filters what the target reads from the shared informers; it never changes which
 * informers run (no caches per tenant). Answers come from {@link AccessDecisions}, so no access
 * review is made per event.
 */
final class TenantBoundary {

  /**
   * A ServiceAccount.
   *
   * @param namespace namespace
   * @param name name
   */
  record ServiceAccountRef(String namespace, String name) {
    @Override
    public String toString() {
      return namespace + "/" + name;
    }
  }

  private static final TenantBoundary OFF = new TenantBoundary(null, Set.of(), null, null);

  private final AccessDecisions decisions;
  private final Set<String> trustedNamespaces;
  private final String defaultServiceAccount;
  private final Function<ResourceType, Optional<String>> plurals;

  TenantBoundary(AccessDecisions decisions, Set<String> trustedNamespaces,
      String defaultServiceAccount, Function<ResourceType, Optional<String>> plurals) {
    this.decisions = decisions;
    this.trustedNamespaces = Set.copyOf(trustedNamespaces);
    this.defaultServiceAccount = defaultServiceAccount;
    this.plurals = plurals;
  }

  /** No boundary: every target reads what the engine's client may read (embedders' default). */
  static TenantBoundary off() {
    return OFF;
  }

  /** The ServiceAccount that bounds the target, or {@code null} when the target is trusted. */
  ServiceAccountRef subjectOf(TargetSpec spec) {
    if (decisions == null || trustedNamespaces.contains(spec.id().namespace())) {
      return null;
    }
    String sa = spec.serviceAccount() == null || spec.serviceAccount().isBlank()
        ? defaultServiceAccount : spec.serviceAccount();
    return new ServiceAccountRef(spec.id().namespace(), sa);
  }

  /**
   * What {@code sa} may read of {@code type}; answers are looked up lazily, per namespace asked.
   *
   * @param sa the subject, {@code null} for an unbounded target
   * @param allNamespaces whether the target's scope is all namespaces
   */
  TypeAccess access(ServiceAccountRef sa, ResourceType type, boolean allNamespaces) {
    if (sa == null) {
      return TypeAccess.UNBOUNDED;
    }
    Optional<String> plural = plurals.apply(type);
    if (plural.isEmpty()) {
      return new TypeAccess(this, sa, type, null, allNamespaces);
    }
    return new TypeAccess(this, sa, type, plural.get(), allNamespaces);
  }

  private boolean mayListWatch(ServiceAccountRef sa, ResourceType type, String plural,
      String namespace) {
    return decisions.mayListWatch(new AccessDecisions.Question(sa.namespace(), sa.name(),
        type.group(), plural, namespace));
  }

  /**
   * One full pass's view of what a ServiceAccount may read of one type, reused by the delta passes
   * until the next full pass. Not thread-safe (used under the target's monitor).
   */
  static final class TypeAccess {

    static final TypeAccess UNBOUNDED = new TypeAccess(null, null, null, null, true);

    private final TenantBoundary boundary;
    private final ServiceAccountRef sa;
    private final ResourceType type;
    private final String plural;
    private final boolean allNamespaces;
    private Boolean clusterWide;
    private final Map<String, Boolean> byNamespace = new TreeMap<>();

    private TypeAccess(TenantBoundary boundary, ServiceAccountRef sa, ResourceType type,
        String plural, boolean allNamespaces) {
      this.boundary = boundary;
      this.sa = sa;
      this.type = type;
      this.plural = plural;
      this.allNamespaces = allNamespaces;
    }

    /**
     * Whether the resource name is known. A type the API server does not serve has none; nothing
     * of it is allowed until discovery finds it.
     */
    boolean resolved() {
      return sa == null || plural != null;
    }

    /** Whether objects in {@code namespace} ({@code null}: cluster-scoped objects) may be read. */
    boolean allows(String namespace) {
      if (sa == null) {
        return true;
      }
      if (plural == null) {
        return false;
      }
      if (allNamespaces || namespace == null) {
        if (clusterWide == null) {
          clusterWide = boundary.mayListWatch(sa, type, plural, null);
        }
        if (clusterWide || namespace == null) {
          return clusterWide;
        }
      }
      return byNamespace.computeIfAbsent(namespace,
          ns -> boundary.mayListWatch(sa, type, plural, ns));
    }

    /**
     * Whether {@link #allows} would answer {@code namespace} from what this view already asked,
     * without a new question to the access cache (a delta pass asks nothing new).
     */
    boolean knows(String namespace) {
      if (sa == null || plural == null) {
        return true;
      }
      if (allNamespaces || namespace == null) {
        if (clusterWide == null) {
          return false;
        }
        if (clusterWide || namespace == null) {
          return true;
        }
      }
      return byNamespace.containsKey(namespace);
    }

    /**
     * {@code forbidden} entries for what was asked and denied: each denied namespace, and {@code
     * "*"} when a cluster-wide read was needed and denied and no namespace was asked.
     */
    List<SkippedScope> forbidden() {
      List<SkippedScope> out = new ArrayList<>();
      if (sa == null || plural == null) {
        return out;
      }
      String resource = type.group().isEmpty() ? plural : plural + "." + type.group();
      if (Boolean.FALSE.equals(clusterWide) && (byNamespace.isEmpty() || !allNamespaces)) {
        out.add(new SkippedScope(type.toString(), "*", LeaseStatus.Skipped.FORBIDDEN,
            "ServiceAccount " + sa + " may not list and watch " + resource
                + " in all namespaces"));
      }
      byNamespace.forEach((ns, allowed) -> {
        if (!allowed) {
          out.add(new SkippedScope(type.toString(), ns, LeaseStatus.Skipped.FORBIDDEN,
              "ServiceAccount " + sa + " may not list and watch " + resource + " in namespace "
                  + ns));
        }
      });
      return out;
    }
  }
}
