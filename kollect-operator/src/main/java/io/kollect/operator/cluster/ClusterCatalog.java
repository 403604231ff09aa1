package io.kollect.operator.cluster;

import io.kollect.core.ClusterConnectionException;
import io.kollect.informers.LabelSelectorMatcher;
import io.kollect.operator.crd.KollectCluster;
import io.kollect.operator.crd.KollectClusterSpec;
import io.kollect.operator.crd.KollectTarget;
import io.kollect.operator.crd.KollectTargetSpec;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The clusters the operator knows besides its own, and which of them each target reads.
 *
 * <p>A cluster is a KollectCluster (its identity is namespace/name, i.e. its credential) or a
 * {@code --cluster NAME=FILE} of the operator. Its name in the engine is its {@code clusterName}
 * (the {@code cluster} value of its records), unique per operator: the operator's own {@code
 * --cluster-name} and the {@code --cluster} names are taken first, then KollectClusters by age
 * (creation time, then namespace/name), so a clash is always the newer one's problem and
 * deleting the older hands the name over.
 *
 * <p><b>Security.</b> A target reads only KollectClusters of its own namespace, and {@code
 * --cluster} clusters only from the namespaces the operator trusts (the same trust as its own
 * cluster, {@code --cluster-wide-namespaces}). A KollectCluster reads only Secrets of its own
 * namespace; a KollectCluster in a trusted namespace may also name Secrets of the namespaces
 * listed in {@code --cluster-secret-namespaces} (e.g. {@code argocd}). Both conditions: a
 * namespace editor, who may create KollectClusters in their namespace, must not borrow the
 * credentials another namespace keeps for the platform.
 *
 * <p><b>A reference that cannot be used never falls back to the operator's cluster.</b> An empty
 * cluster list means "the engine's own cluster", so an unknown, refused or conflicting reference
 * (or a selector matching nothing) is given to the engine as an <em>unavailable</em> name: {@code
 * kind:namespace:name}, which no real cluster name can be (they hold no {@code :}). Opening it
 * fails with the reason and message of {@link #unavailable}, which the target then reports for
 * that cluster.
 *
 * <p>Thread-safe: KollectCluster and target events arrive on different informer threads.
 */
public final class ClusterCatalog {

  /** Reason of a clusterName used twice (on the newer KollectCluster, and its targets). */
  static final String REASON_NAME_CONFLICT = "ClusterNameConflict";

  static final String MISSING = "missing";
  static final String REFUSED = "refused";
  static final String UNUSABLE = "unusable";
  static final String EMPTY = "empty";

  /**
   * Where a cluster's credentials are.
   *
   * @param cluster the engine's name of it
   * @param owner {@code KollectCluster ns/name} or {@code --cluster NAME}, for messages
   * @param secretNamespace the Secret's namespace (KollectClusters)
   * @param secretName the Secret's name (KollectClusters)
   * @param key the kubeconfig key, {@code null} for the defaults (kubeconfig Secrets)
   * @param argoCd whether the Secret is an Argo CD cluster Secret
   * @param file the operator's kubeconfig file ({@code --cluster})
   */
  record Source(String cluster, String owner, String secretNamespace, String secretName,
      String key, boolean argoCd, Path file) {

    static Source file(String cluster, Path file) {
      return new Source(cluster, "--cluster " + cluster, null, null, null, false, file);
    }

    boolean fromFile() {
      return file != null;
    }

    /** {@code Secret ns/name}. */
    String secret() {
      return "Secret " + secretNamespace + "/" + secretName;
    }
  }

  /** A KollectCluster that cannot be used as it is: the reason and what to fix. */
  record Problem(String reason, String message) {}

  private final String localName;
  private final Set<String> trustedNamespaces;
  private final Set<String> secretNamespaces;
  private final Map<String, Path> files;
  /** KollectClusters by {@code ns/name}. */
  private final Map<String, KollectCluster> clusters = new HashMap<>();
  /** clusterName to the {@code ns/name} of the KollectCluster that holds it. */
  private Map<String, String> owners = Map.of();

  /**
   * @param localName the operator's {@code --cluster-name}
   * @param trustedNamespaces namespaces whose targets may read {@code --cluster} clusters
   * @param secretNamespaces namespaces whose Secrets any KollectCluster may name
   * @param files the {@code --cluster NAME=FILE} clusters
   */
  public ClusterCatalog(String localName, Set<String> trustedNamespaces, Set<String> secretNamespaces,
      Map<String, Path> files) {
    this.localName = localName;
    this.trustedNamespaces = Set.copyOf(trustedNamespaces);
    this.secretNamespaces = Set.copyOf(secretNamespaces);
    this.files = Map.copyOf(files);
  }

  static String key(String namespace, String name) {
    return namespace + "/" + name;
  }

  static String key(KollectCluster c) {
    return key(c.getMetadata().getNamespace(), c.getMetadata().getName());
  }

  /** The cluster value of a KollectCluster's records: {@code spec.clusterName}, else its name. */
  static String clusterName(KollectCluster c) {
    String n = c.getSpec() == null ? null : c.getSpec().clusterName();
    return n == null || n.isBlank() ? c.getMetadata().getName() : n;
  }

  /**
   * Adds or replaces a KollectCluster; returns the cluster names whose holder changed (their
   * connections must be rebuilt).
   */
  synchronized Set<String> put(KollectCluster cluster) {
    Map<String, String> before = owners;
    KollectCluster old = clusters.put(key(cluster), cluster);
    owners = computeOwners();
    Set<String> changed = changedOwners(before, owners);
    if (old != null && !Objects.equals(clusterName(old), clusterName(cluster))) {
      changed.add(clusterName(old));
    }
    return changed;
  }

  /** Removes a KollectCluster; returns the cluster names whose holder changed. */
  synchronized Set<String> remove(String namespace, String name) {
    Map<String, String> before = owners;
    clusters.remove(key(namespace, name));
    owners = computeOwners();
    return changedOwners(before, owners);
  }

  synchronized Optional<KollectCluster> get(String key) {
    return Optional.ofNullable(clusters.get(key));
  }

  synchronized List<KollectCluster> all() {
    return List.copyOf(clusters.values());
  }

  /** The KollectCluster ({@code ns/name}) that holds the cluster name, if any. */
  synchronized Optional<String> holder(String clusterName) {
    return Optional.ofNullable(owners.get(clusterName));
  }

  private static Set<String> changedOwners(Map<String, String> before, Map<String, String> after) {
    Set<String> changed = new LinkedHashSet<>();
    for (String name : before.keySet()) {
      if (!Objects.equals(before.get(name), after.get(name))) {
        changed.add(name);
      }
    }
    for (String name : after.keySet()) {
      if (!Objects.equals(before.get(name), after.get(name))) {
        changed.add(name);
      }
    }
    return changed;
  }

  private Map<String, String> computeOwners() {
    List<KollectCluster> byAge = new ArrayList<>(clusters.values());
    byAge.sort(Comparator.comparing((KollectCluster c) -> created(c))
        .thenComparing((KollectCluster c) -> key(c)));
    Map<String, String> out = new TreeMap<>();
    for (KollectCluster c : byAge) {
      String name = clusterName(c);
      if (!reserved(name) && !out.containsKey(name) && specProblem(c).isEmpty()) {
        out.put(name, key(c));
      }
    }
    return Map.copyOf(out);
  }

  private static Instant created(KollectCluster c) {
    String ts = c.getMetadata().getCreationTimestamp();
    try {
      return ts == null ? Instant.MAX : Instant.parse(ts);
    } catch (RuntimeException e) {
      return Instant.MAX;
    }
  }

  private boolean reserved(String name) {
    return name.equals(localName) || files.containsKey(name);
  }

  /**
   * What keeps a KollectCluster from being used, if anything: its spec (no source, both,
   * a Secret namespace the operator does not allow), or its name (reserved or held by an older
   * one).
   */
  synchronized Optional<Problem> problem(String key) {
    KollectCluster c = clusters.get(key);
    if (c == null) {
      return Optional.empty();
    }
    Optional<Problem> spec = specProblem(c);
    if (spec.isPresent()) {
      return spec;
    }
    String name = clusterName(c);
    if (name.equals(localName)) {
      return Optional.of(new Problem(REASON_NAME_CONFLICT, "spec.clusterName: \"" + name
          + "\" is the operator's own cluster (--cluster-name); choose another"));
    }
    if (files.containsKey(name)) {
      return Optional.of(new Problem(REASON_NAME_CONFLICT, "spec.clusterName: \"" + name
          + "\" is taken by the operator's --cluster " + name + "; choose another"));
    }
    String holder = owners.get(name);
    if (holder != null && !holder.equals(key)) {
      return Optional.of(new Problem(REASON_NAME_CONFLICT, "spec.clusterName: \"" + name
          + "\" is already used by KollectCluster " + holder + " (older); cluster names are "
          + "unique per operator"));
    }
    return Optional.empty();
  }

  private Optional<Problem> specProblem(KollectCluster c) {
    KollectClusterSpec spec = c.getSpec();
    String invalid = ClusterConnectionException.REASON_INVALID_KUBECONFIG;
    if (spec == null) {
      return Optional.of(new Problem(invalid, "spec: is missing"));
    }
    boolean kubeconfig = spec.kubeConfig() != null && spec.kubeConfig().secretRef() != null;
    boolean argo = spec.argoCDSecretRef() != null;
    if (kubeconfig == argo) {
      return Optional.of(new Problem(invalid, kubeconfig
          ? "spec: give one of kubeConfig and argoCDSecretRef, not both"
          : "spec: one of kubeConfig.secretRef and argoCDSecretRef is required"));
    }
    String field = kubeconfig ? "spec.kubeConfig.secretRef" : "spec.argoCDSecretRef";
    KollectClusterSpec.SecretRef ref = kubeconfig ? spec.kubeConfig().secretRef()
        : spec.argoCDSecretRef();
    if (ref.name() == null || ref.name().isBlank()) {
      return Optional.of(new Problem(invalid, field + ".name: is missing"));
    }
    String ns = ref.namespace();
    String own = c.getMetadata().getNamespace();
    if (ns != null && !ns.isBlank() && !ns.equals(own)) {
      if (!secretNamespaces.contains(ns)) {
        return Optional.of(new Problem(ClusterConnectionException.REASON_FORBIDDEN, field
            + ".namespace: Secrets of namespace " + ns + " may not be used: a KollectCluster "
            + "reads Secrets of its own namespace, or of one the operator lists in "
            + "--cluster-secret-namespaces"));
      }
      if (!trustedNamespaces.contains(own)) {
        return Optional.of(new Problem(ClusterConnectionException.REASON_FORBIDDEN, field
            + ".namespace: only KollectClusters in the namespaces the operator trusts "
            + "(--cluster-wide-namespaces) may name Secrets of another namespace; " + own
            + " is not one of them"));
      }
    }
    return Optional.empty();
  }

  private static boolean hasSource(KollectCluster c) {
    KollectClusterSpec spec = c.getSpec();
    return spec != null && (spec.argoCDSecretRef() != null
        || (spec.kubeConfig() != null && spec.kubeConfig().secretRef() != null));
  }

  /** Where a KollectCluster's credentials are (it may still have a {@link #problem}). */
  static Source source(KollectCluster c) {
    KollectClusterSpec spec = c.getSpec();
    boolean argo = spec.argoCDSecretRef() != null;
    KollectClusterSpec.SecretRef ref = argo ? spec.argoCDSecretRef() : spec.kubeConfig().secretRef();
    String ns = ref.namespace() == null || ref.namespace().isBlank()
        ? c.getMetadata().getNamespace() : ref.namespace();
    return new Source(clusterName(c), "KollectCluster " + key(c), ns, ref.name(),
        argo ? null : ref.key(), argo, null);
  }

  /**
   * Where the engine's cluster {@code name} comes from.
   *
   * @throws ClusterConnectionException for an unavailable name ({@link #unavailable}), an unknown
   *     one, or a KollectCluster that cannot be used ({@link #problem})
   */
  synchronized Source source(String name) throws ClusterConnectionException {
    if (name.indexOf(':') >= 0) {
      throw unavailable(name);
    }
    Path file = files.get(name);
    if (file != null) {
      return Source.file(name, file);
    }
    String holder = owners.get(name);
    if (holder == null) {
      throw new ClusterConnectionException(ClusterConnectionException.REASON_NOT_FOUND,
          "no KollectCluster has clusterName " + name);
    }
    return source(clusters.get(holder));
  }

  /** The engine names of the KollectClusters reading this Secret. */
  synchronized Set<String> readingSecret(String namespace, String name) {
    Set<String> out = new LinkedHashSet<>();
    owners.forEach((cluster, holder) -> {
      Source s = source(clusters.get(holder));
      if (namespace.equals(s.secretNamespace()) && name.equals(s.secretName())) {
        out.add(cluster);
      }
    });
    return out;
  }

  /** The KollectClusters ({@code ns/name}) naming this Secret, usable or not. */
  synchronized Set<String> clustersOfSecret(String namespace, String name) {
    Set<String> out = new LinkedHashSet<>();
    for (KollectCluster c : clusters.values()) {
      if (hasSource(c)) {
        Source s = source(c);
        if (namespace.equals(s.secretNamespace()) && name.equals(s.secretName())) {
          out.add(key(c));
        }
      }
    }
    return out;
  }

  /** Every Secret ({@code ns/name}) a KollectCluster may read. */
  synchronized Set<String> secrets() {
    Set<String> out = new LinkedHashSet<>();
    for (KollectCluster c : clusters.values()) {
      if (specProblem(c).isEmpty()) {
        Source s = source(c);
        out.add(key(s.secretNamespace(), s.secretName()));
      }
    }
    return out;
  }

  /**
   * The engine's cluster names a target reads: empty for the operator's own cluster (neither
   * {@code clusterRef} nor {@code clusterSelector}), else the clusters the reference and the
   * selector pick (both may be given; their union is read), each usable cluster by its name and
   * every other as an {@linkplain #unavailable unavailable} name.
   *
   * @throws IllegalArgumentException naming the field when the selector is invalid
   */
  synchronized List<String> resolve(KollectTarget target) {
    KollectTargetSpec spec = target.getSpec();
    if (spec == null || (spec.clusterRef() == null && spec.clusterSelector() == null)) {
      return List.of();
    }
    String ns = target.getMetadata().getNamespace();
    Set<String> out = new LinkedHashSet<>();
    if (spec.clusterRef() != null) {
      out.add(resolveRef(ns, spec.clusterRef()));
    }
    if (spec.clusterSelector() != null) {
      LabelSelectorMatcher matcher = LabelSelectorMatcher.compile(spec.clusterSelector(),
          "spec.clusterSelector");
      List<KollectCluster> picked = clusters.values().stream()
          .filter(c -> ns.equals(c.getMetadata().getNamespace()))
          .filter(c -> matcher.test(c.getMetadata().getLabels() == null ? Map.of()
              : c.getMetadata().getLabels()))
          .sorted(Comparator.comparing(ClusterCatalog::key)).toList();
      for (KollectCluster c : picked) {
        out.add(usable(c) ? clusterName(c)
            : unavailableName(UNUSABLE, ns, c.getMetadata().getName()));
      }
      if (picked.isEmpty() && spec.clusterRef() == null) {
        out.add(unavailableName(EMPTY, ns, target.getMetadata().getName()));
      }
    }
    return List.copyOf(out);
  }

  private String resolveRef(String ns, KollectTargetSpec.ClusterRef ref) {
    String name = ref.name();
    if (ref.namespace() != null && !ref.namespace().isBlank() && !ref.namespace().equals(ns)) {
      return unavailableName(REFUSED, ref.namespace(), name);
    }
    KollectCluster c = clusters.get(key(ns, name));
    if (c != null) {
      return usable(c) ? clusterName(c) : unavailableName(UNUSABLE, ns, name);
    }
    if (files.containsKey(name)) {
      return trustedNamespaces.contains(ns) ? name : unavailableName(REFUSED, "", name);
    }
    return unavailableName(MISSING, ns, name);
  }

  /** Whether targets may read it: its spec is usable and it holds its cluster name. */
  private boolean usable(KollectCluster c) {
    return key(c).equals(owners.get(clusterName(c)));
  }

  static String unavailableName(String kind, String namespace, String name) {
    return kind + ":" + namespace + ":" + name;
  }

  /** Whether an engine cluster name is an {@linkplain #unavailableName unavailable} one. */
  static boolean isUnavailable(String engineName) {
    return engineName.indexOf(':') >= 0;
  }

  /** How a target's status names a cluster: an unavailable one as the reference it came from. */
  public static String displayName(String engineName) {
    String[] p = engineName.split(":", 3);
    if (p.length != 3) {
      return engineName;
    }
    if (EMPTY.equals(p[0])) {
      return "(clusterSelector)";
    }
    return p[1].isEmpty() ? p[2] : p[1] + "/" + p[2];
  }

  private static final java.util.regex.Pattern UNAVAILABLE_IN_TEXT = java.util.regex.Pattern
      .compile("\\b(" + MISSING + "|" + REFUSED + "|" + UNUSABLE + "|" + EMPTY
          + "):([a-z0-9-]*):([a-z0-9.-]+)");

  /** A message with every unavailable cluster name in it written as {@link #displayName}. */
  public static String withDisplayNames(String message) {
    if (message == null || message.indexOf(':') < 0) {
      return message;
    }
    return UNAVAILABLE_IN_TEXT.matcher(message).replaceAll(m -> java.util.regex.Matcher
        .quoteReplacement(displayName(m.group())));
  }

  /** Why an unavailable cluster cannot be read, for the targets that name it. */
  private ClusterConnectionException unavailable(String engineName) {
    String[] p = engineName.split(":", 3);
    String kind = p[0];
    String ns = p.length > 1 ? p[1] : "";
    String name = p.length > 2 ? p[2] : "";
    return switch (kind) {
      case REFUSED -> new ClusterConnectionException(ClusterConnectionException.REASON_FORBIDDEN,
          ns.isEmpty()
              ? "spec.clusterRef: cluster " + name + " (--cluster) may only be read by targets "
                  + "in the namespaces the operator trusts (--cluster-wide-namespaces)"
              : "spec.clusterRef: KollectCluster " + ns + "/" + name + " is in another "
                  + "namespace; a target may only read KollectClusters of its own namespace");
      case UNUSABLE -> {
        Problem problem = problem(key(ns, name)).orElse(new Problem(REASON_NAME_CONFLICT,
            "cannot be used"));
        yield new ClusterConnectionException(problem.reason(), "KollectCluster " + ns + "/"
            + name + ": " + problem.message());
      }
      case EMPTY -> new ClusterConnectionException(ClusterConnectionException.REASON_NOT_FOUND,
          "spec.clusterSelector: matches no KollectCluster in namespace " + ns);
      default -> new ClusterConnectionException(ClusterConnectionException.REASON_NOT_FOUND,
          "spec.clusterRef: KollectCluster " + ns + "/" + name + " does not exist");
    };
  }
}
