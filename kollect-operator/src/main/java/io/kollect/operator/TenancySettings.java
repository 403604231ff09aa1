package io.kollect.operator;

import java.util.Set;
import java.util.regex.Pattern;

/**
 * The tenant boundary: whom a target reads as, and whose targets are trusted ({@code
 * --default-service-account}, {@code --cluster-wide-namespaces}).
 *
 * @param defaultServiceAccount the ServiceAccount a target reads as when it names none
 * @param clusterWideNamespaces namespaces whose targets are trusted and not checked against their
 *     ServiceAccount; empty means the operator's own namespace
 */
public record TenancySettings(String defaultServiceAccount, Set<String> clusterWideNamespaces) {

  /** As Flux: a target without {@code serviceAccountName} reads as {@code default}. */
  public static final String DEFAULT_SERVICE_ACCOUNT = "default";

  private static final Pattern DNS_SUBDOMAIN = Pattern.compile(
      "(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  public TenancySettings {
    if (defaultServiceAccount == null || !DNS_SUBDOMAIN.matcher(defaultServiceAccount).matches()) {
      throw new IllegalArgumentException("--default-service-account: '" + defaultServiceAccount
          + "' is not a ServiceAccount name (lower-case letters, digits, '-' and '.')");
    }
    clusterWideNamespaces = SettingRules.namespaces(clusterWideNamespaces,
        "--cluster-wide-namespaces");
  }

  /** Targets read as {@code default}; only the operator's own namespace is trusted. */
  public static TenancySettings defaults() {
    return new TenancySettings(DEFAULT_SERVICE_ACCOUNT, Set.of());
  }

  /**
   * The namespaces whose targets are not checked against their ServiceAccount: {@code
   * clusterWideNamespaces}, or {@code operatorNamespace} when none are given.
   */
  public Set<String> trustedNamespaces(String operatorNamespace) {
    return clusterWideNamespaces.isEmpty() ? Set.of(operatorNamespace) : clusterWideNamespaces;
  }
}
