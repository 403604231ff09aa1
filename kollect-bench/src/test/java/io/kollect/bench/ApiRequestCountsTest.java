package io.kollect.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ApiRequestCountsTest {

  private static final String BEFORE = """
      # HELP apiserver_request_total [STABLE] Counter of apiserver requests
      apiserver_request_total{code="200",component="apiserver",contentType="application/json",dry_run="",group="",resource="configmaps",scope="cluster",subresource="",verb="LIST",version="v1"} 3
      apiserver_request_total{code="200",component="apiserver",contentType="application/json",dry_run="",group="",resource="",scope="",subresource="/metrics",verb="GET",version=""} 7
      """;
  private static final String AFTER = """
      apiserver_request_total{code="200",component="apiserver",contentType="application/json",dry_run="",group="",resource="configmaps",scope="cluster",subresource="",verb="LIST",version="v1"} 5
      apiserver_request_total{code="200",component="apiserver",contentType="application/json",dry_run="",group="",resource="",scope="",subresource="/metrics",verb="GET",version=""} 9
      apiserver_request_total{code="200",component="apiserver",contentType="application/json",dry_run="",group="kollect.io",resource="kollecttargets",scope="resource",subresource="status",verb="PATCH",version="v1alpha1"} 1000
      apiserver_request_total{code="409",component="apiserver",contentType="application/json",dry_run="",group="kollect.io",resource="kollecttargets",scope="resource",subresource="status",verb="PATCH",version="v1alpha1"} 4
      apiserver_request_total_other{verb="LIST",resource="configmaps"} 99
      """;

  @Test
  void countsResourceRequestsByVerbAndResourceOverCodes() {
    ApiRequestCounts after = ApiRequestCounts.parse(AFTER);
    assertThat(after.byVerbResource()).containsEntry("PATCH kollecttargets/status", 1004L)
        .containsEntry("LIST configmaps", 5L)
        .hasSize(2);
  }

  @Test
  void theDifferenceKeepsOnlyWhatChangedAndLeavesOutNonResourceRequests() {
    ApiRequestCounts delta = ApiRequestCounts.parse(AFTER).minus(ApiRequestCounts.parse(BEFORE));
    assertThat(delta.byVerbResource()).containsExactly(
        java.util.Map.entry("LIST configmaps", 2L), java.util.Map.entry("PATCH kollecttargets/status", 1004L));
    assertThat(delta.total()).isEqualTo(1006);
    assertThat(delta.verb("PATCH")).isEqualTo(1004);
  }
}
