package io.kollect.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.core.KollectEngine;
import io.kollect.core.SkippedScope;
import io.kollect.core.TargetId;
import io.kollect.core.TargetScope;
import io.kollect.core.TargetSpec;
import io.kollect.core.TargetStatus;
import io.kollect.export.Sink;
import io.kollect.export.SinkOptions;
import io.kollect.extract.FieldRule;
import io.kollect.extract.Op;
import io.kollect.extract.ProfileSpec;
import io.kollect.extract.Record;
import io.kollect.extract.ResourceRule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The tenant boundary on a real API server with RBAC: the engine reads cluster-wide (admin client), a
 * target in {@code tenant-a} reads only what its ServiceAccount may list and watch, and a
 * RoleBinding granted (or removed) later takes effect without a restart. A target in a trusted
 * namespace on the same engine keeps reading everything.
 */
class TenantBoundaryIT {

  static final Duration WAIT = Duration.ofSeconds(60);
  static ApiServer server;
  static KubernetesClient admin;

  /** Keeps every record it is given, in delivery order. */
  static final class CollectingSink implements Sink {
    private final List<Record> records = new ArrayList<>();

    @Override
    public String name() {
      return "collect";
    }

    @Override
    public synchronized void write(List<Record> batch) {
      records.addAll(batch);
    }

    synchronized List<Record> of(String target) {
      return records.stream().filter(r -> target.equals(r.target())).toList();
    }
  }

  @BeforeAll
  static void startServer() {
    server = ApiServer.start();
    admin = server.admin();
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  private static void configMap(String namespace, String name, String value) {
    admin.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder().withNewMetadata()
        .withName(name).withNamespace(namespace).endMetadata().addToData("value", value).build())
        .create();
  }

  private static void allowConfigMapReads(String namespace) {
    admin.rbac().roles().inNamespace(namespace).resource(new RoleBuilder().withNewMetadata()
        .withName("read-configmaps").endMetadata().addNewRule().withApiGroups("")
        .withResources("configmaps").withVerbs("get", "list", "watch").endRule().build())
        .createOr(r -> r.update());
    admin.rbac().roleBindings().inNamespace(namespace).resource(new RoleBindingBuilder()
        .withNewMetadata().withName("tenant-a-reader").endMetadata()
        .withNewRoleRef().withApiGroup("rbac.authorization.k8s.io").withKind("Role")
        .withName("read-configmaps").endRoleRef()
        .addNewSubject().withKind("ServiceAccount").withName("reader")
        .withNamespace("tenant-a").endSubject().build()).create();
  }

  private static TargetStatus awaitStatus(KollectEngine engine, TargetId id,
      Predicate<TargetStatus> p) {
    return await().atMost(WAIT).until(() -> engine.status(id).orElse(null),
        s -> s != null && p.test(s));
  }

  private static boolean forbiddenIn(TargetStatus s, String namespace) {
    return s.skipped().stream().anyMatch(k -> k.namespace().equals(namespace)
        && k.reason().equals("forbidden"));
  }

  @Test
  void aTenantTargetReadsOnlyWhatItsServiceAccountMayAndAGrantTakesEffectWithoutRestart() {
    for (String ns : List.of("tenant-a", "payments", "kollect")) {
      server.admin().namespaces().resource(new io.fabric8.kubernetes.api.model.NamespaceBuilder()
          .withNewMetadata().withName(ns).endMetadata().build()).createOr(n -> n.update());
    }
    configMap("tenant-a", "app-config", "blue");
    configMap("payments", "card-limits", "1000");
    allowConfigMapReads("tenant-a");

    CollectingSink sink = new CollectingSink();
    try (KollectEngine engine = KollectEngine.builder(admin).cluster("it")
        .trustedNamespaces(Set.of("kollect"))
        .accessReviewInterval(Duration.ofSeconds(1))
        .build()) {
      engine.putProfile("config", new ProfileSpec(List.of(new ResourceRule("", "v1",
          "ConfigMap", List.of(FieldRule.of("value", ".data.value")), List.of(), List.of(),
          List.of(), false, false))));
      engine.putSink(sink, SinkOptions.defaults().withLinger(Duration.ofMillis(20)));
      TargetSpec tenant = new TargetSpec(new TargetId("tenant-a", "inventory"), 1, "config",
          TargetScope.everything(), List.of("collect"), false, "reader");
      TargetSpec platform = new TargetSpec(new TargetId("kollect", "inventory"), 1, "config",
          TargetScope.everything(), List.of("collect"), false);
      engine.putTarget(tenant);
      engine.putTarget(platform);
      engine.start();

      // The tenant sees tenant-a, and payments is reported forbidden naming its ServiceAccount.
      TargetStatus bounded = awaitStatus(engine, tenant.id(),
          s -> s.ready() && forbiddenIn(s, "payments"));
      assertThat(bounded.skipped()).filteredOn(k -> k.namespace().equals("payments"))
          .singleElement().satisfies(k -> {
            assertThat(k.resource()).isEqualTo("v1/ConfigMap");
            assertThat(k.message()).contains("ServiceAccount tenant-a/reader");
          });
      assertThat(bounded.skipped()).extracting(SkippedScope::namespace)
          .doesNotContain("tenant-a");
      assertThat(bounded.condition("Degraded").reason()).isEqualTo("Forbidden");
      assertThat(bounded.condition("Degraded").message()).contains(
          "v1/ConfigMap is forbidden in namespace payments for ServiceAccount tenant-a/reader");
      assertThat(bounded.objectCounts()).isEqualTo(Map.of("v1/ConfigMap", 1));
      await().atMost(WAIT).until(() -> !sink.of("tenant-a/inventory").isEmpty()
          && sink.of("kollect/inventory").stream()
              .anyMatch(r -> "payments".equals(r.namespace())));
      assertThat(engine.awaitIdle(WAIT)).isTrue();
      assertThat(sink.of("tenant-a/inventory")).extracting(Record::namespace)
          .containsOnly("tenant-a");
      // The trusted target on the same engine (and informers) reads what the engine may.
      assertThat(sink.of("kollect/inventory")).extracting(Record::namespace)
          .contains("tenant-a", "payments");

      // Granting access later shows payments without a restart.
      allowConfigMapReads("payments");
      await().atMost(WAIT).until(() -> sink.of("tenant-a/inventory").stream()
          .anyMatch(r -> "payments".equals(r.namespace()) && r.op() == Op.UPSERT));
      TargetStatus granted = awaitStatus(engine, tenant.id(),
          s -> !forbiddenIn(s, "payments"));
      assertThat(granted.objectCounts()).isEqualTo(Map.of("v1/ConfigMap", 2));

      // ... and revoking it removes what the tenant may no longer read.
      admin.rbac().roleBindings().inNamespace("payments").withName("tenant-a-reader").delete();
      await().atMost(WAIT).until(() -> sink.of("tenant-a/inventory").stream()
          .anyMatch(r -> "payments".equals(r.namespace()) && r.op() == Op.DELETE));
      awaitStatus(engine, tenant.id(), s -> forbiddenIn(s, "payments"));
    }
  }
}
