package io.kollect.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ClustersBenchTest {

  @Test
  void openWatchesCountOnlyWatchesOfTheTwoWatchedTypes() {
    String metrics = """
        # TYPE apiserver_longrunning_gauge gauge
        apiserver_longrunning_gauge{component="apiserver",group="",resource="configmaps",scope="cluster",subresource="",verb="WATCH",version="v1"} 3
        apiserver_longrunning_gauge{component="apiserver",group="",resource="services",scope="namespace",subresource="",verb="WATCH",version="v1"} 2
        apiserver_longrunning_gauge{component="apiserver",group="",resource="secrets",scope="cluster",subresource="",verb="WATCH",version="v1"} 7
        apiserver_longrunning_gauge{component="apiserver",group="",resource="pods",scope="namespace",subresource="log",verb="CONNECT",version="v1"} 1
        """;
    assertThat(ClustersBench.watchGauge(metrics)).isEqualTo(5);
  }
}
