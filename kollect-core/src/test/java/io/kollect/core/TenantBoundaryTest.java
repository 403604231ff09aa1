package io.kollect.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.informers.ResourceType;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TenantBoundaryTest {

  static final ResourceType CONFIG_MAP = new ResourceType("", "v1", "ConfigMap");
  static final ResourceType WIDGET = new ResourceType("example.com", "v1", "Widget");

  private final AccessDecisionsTest.Policy policy = new AccessDecisionsTest.Policy();
  private final AccessDecisions decisions = new AccessDecisions(policy, null, q -> {});
  private final TenantBoundary boundary = new TenantBoundary(decisions, Set.of("kollect"),
      "default", t -> t.equals(CONFIG_MAP) ? Optional.of("configmaps") : Optional.empty());

  @AfterEach
  void close() {
    decisions.close();
  }

  private static TargetSpec target(String namespace, String serviceAccount) {
    return new TargetSpec(new TargetId(namespace, "t"), 1, "p", TargetScope.everything(),
        List.of(), false, serviceAccount);
  }

  @Test
  void targetsInTrustedNamespacesAreNotCheckedOthersAreReadAsTheirServiceAccount() {
    assertThat(boundary.subjectOf(target("kollect", "x"))).isNull();
    assertThat(boundary.subjectOf(target("tenant-a", null)))
        .isEqualTo(new TenantBoundary.ServiceAccountRef("tenant-a", "default"));
    assertThat(boundary.subjectOf(target("tenant-a", "reader")))
        .isEqualTo(new TenantBoundary.ServiceAccountRef("tenant-a", "reader"));
    assertThat(TenantBoundary.off().subjectOf(target("tenant-a", "reader"))).isNull();
    assertThat(boundary.access(null, CONFIG_MAP, true).allows("payments")).isTrue();
  }

  @Test
  void anAllNamespacesScopeForbiddenClusterWideIsAllowedNamespaceByNamespace() {
    policy.allow("tenant-a", "reader", "configmaps", "tenant-a", true);
    var sa = boundary.subjectOf(target("tenant-a", "reader"));
    var access = boundary.access(sa, CONFIG_MAP, true);
    assertThat(access.allows("tenant-a")).isTrue();
    assertThat(access.allows("payments")).isFalse();
    assertThat(access.allows("payments")).isFalse();
    assertThat(access.allows(null)).isFalse();
    assertThat(access.forbidden()).singleElement().satisfies(s -> {
      assertThat(s.resource()).isEqualTo("v1/ConfigMap");
      assertThat(s.namespace()).isEqualTo("payments");
      assertThat(s.reason()).isEqualTo("forbidden");
      assertThat(s.message()).isEqualTo("ServiceAccount tenant-a/reader may not list and watch "
          + "configmaps in namespace payments");
    });
    // cluster-wide, tenant-a, payments: each asked once
    assertThat(policy.asked).hasValue(3);
  }

  @Test
  void aServiceAccountAllowedClusterWideIsNotAskedPerNamespace() {
    policy.allow("tenant-a", "default", "configmaps", null, true);
    var access = boundary.access(boundary.subjectOf(target("tenant-a", null)), CONFIG_MAP, true);
    assertThat(access.allows("payments")).isTrue();
    assertThat(access.allows("tenant-a")).isTrue();
    assertThat(access.forbidden()).isEmpty();
    assertThat(policy.asked).hasValue(1);
  }

  @Test
  void anExplicitNamespaceIsCheckedInThatNamespaceAndNotClusterWide() {
    policy.allow("tenant-a", "default", "configmaps", "tenant-a", true);
    var access = boundary.access(boundary.subjectOf(target("tenant-a", null)), CONFIG_MAP, false);
    assertThat(access.allows("tenant-a")).isTrue();
    assertThat(access.allows("payments")).isFalse();
    assertThat(access.forbidden()).extracting(SkippedScope::namespace).containsExactly("payments");
  }

  @Test
  void aNothingAskedAllNamespacesDenialIsReportedAsClusterWide() {
    var access = boundary.access(boundary.subjectOf(target("tenant-a", null)), CONFIG_MAP, true);
    assertThat(access.allows(null)).isFalse();
    assertThat(access.forbidden()).singleElement().satisfies(s -> {
      assertThat(s.namespace()).isEqualTo("*");
      assertThat(s.message()).contains("tenant-a/default", "in all namespaces");
    });
  }

  @Test
  void aTypeWhoseResourceNameIsUnknownAllowsNothing() {
    var access = boundary.access(boundary.subjectOf(target("tenant-a", null)), WIDGET, true);
    assertThat(access.resolved()).isFalse();
    assertThat(access.allows("tenant-a")).isFalse();
    assertThat(access.forbidden()).isEmpty();
    assertThat(policy.asked).hasValue(0);
  }
}
