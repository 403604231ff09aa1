package io.kollect.export.otlp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kollect.export.TlsConfig;
import io.kollect.extract.GroupVersionKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The entity.type rule of docs/record-format.md, "OTLP mapping", and the config's refusals. */
class EntityTypeTest {

  @ParameterizedTest(name = "{0}/{2} -> {3}")
  @CsvSource({
      "apps, v1, Deployment, k8s.deployment",
      "apps, v1, StatefulSet, k8s.statefulset",
      "apps, v1, DaemonSet, k8s.daemonset",
      "apps, v1, ReplicaSet, k8s.replicaset",
      "batch, v1, Job, k8s.job",
      "batch, v1, CronJob, k8s.cronjob",
      "'', v1, Pod, k8s.pod",
      "'', v1, Namespace, k8s.namespace",
      "'', v1, Node, k8s.node",
      "'', v1, ReplicationController, k8s.replicationcontroller",
      "'', v1, ResourceQuota, k8s.resourcequota",
      "autoscaling, v2, HorizontalPodAutoscaler, k8s.hpa",
      "'', v1, ConfigMap, k8s.configmap",
      "'', v1, Service, k8s.service",
      "apps, v1, ControllerRevision, k8s.apps.controllerrevision",
      "extensions, v1beta1, Deployment, k8s.extensions.deployment",
      "cert-manager.io, v1, Certificate, k8s.cert-manager.io.certificate",
      "networking.k8s.io, v1, Ingress, k8s.networking.k8s.io.ingress"})
  void semanticConventionNamesWhereTheyExistElseTheGroupAndKindRule(String group,
      String version, String kind, String expected) {
    assertThat(OtlpSink.entityType(new GroupVersionKind(group, version, kind)))
        .isEqualTo(expected);
  }

  @Test
  void theApiVersionNeverChangesTheEntityType() {
    assertThat(OtlpSink.entityType(new GroupVersionKind("autoscaling", "v1",
        "HorizontalPodAutoscaler"))).isEqualTo(OtlpSink.entityType(new GroupVersionKind(
            "autoscaling", "v2", "HorizontalPodAutoscaler")));
  }

  @Test
  void configRefusesTlsOverPlainHttpAndSkippingVerification() {
    assertThatThrownBy(() -> OtlpSinkConfig.builder().endpoint("http://collector:4318/v1/logs")
        .tls(TlsConfig.defaults()).build()).hasMessageStartingWith("tls:");
    assertThatThrownBy(() -> OtlpSinkConfig.builder().endpoint("https://collector:4318/v1/logs")
        .tls(TlsConfig.defaults().withInsecureSkipVerify(true)).build())
        .hasMessageStartingWith("tls.insecureSkipVerify:");
    assertThatThrownBy(() -> OtlpSinkConfig.builder().endpoint("collector:4317").build())
        .hasMessageStartingWith("endpoint:");
  }

  @Test
  void configNeverPrintsHeaderValues() {
    OtlpSinkConfig config = OtlpSinkConfig.builder().endpoint("https://collector:4318/v1/logs")
        .header("Authorization", () -> "Bearer s3cr3t").build();
    assertThat(config.toString()).contains("Authorization").doesNotContain("s3cr3t");
    assertThat(OtlpSinkConfig.Protocol.parse("grpc")).isEqualTo(OtlpSinkConfig.Protocol.GRPC);
    assertThat(OtlpSinkConfig.Protocol.parse("http/protobuf"))
        .isEqualTo(OtlpSinkConfig.Protocol.HTTP_PROTOBUF);
  }
}
