package io.kollect.core;

import static io.kollect.core.EngineIT.WAIT;
import static io.kollect.core.EngineIT.deploymentProfile;
import static io.kollect.core.EngineIT.fastSink;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.testing.TestApiServer;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A namespace the engine may not read degrades the target instead of failing it: a real API
 * server with RBAC, the engine authenticated as a service-account-like user with a token.
 */
class ForbiddenIT {

  static final String TOKEN = "kollect-it-token";
  static TestCluster cluster;

  @BeforeAll
  static void startCluster() {
    cluster = TestCluster.start(TestApiServer.builder().tokenUser(TOKEN,
        "system:serviceaccount:ops:kollect", "system:serviceaccounts",
        "system:serviceaccounts:ops"));
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static void allowDeploymentsIn(String namespace) {
    cluster.client().rbac().roles().inNamespace(namespace).resource(new RoleBuilder()
        .withNewMetadata().withName("read-deployments").endMetadata()
        .addNewRule().withApiGroups("apps").withResources("deployments")
        .withVerbs("get", "list", "watch").endRule().build()).create();
    cluster.client().rbac().roleBindings().inNamespace(namespace).resource(new RoleBindingBuilder()
        .withNewMetadata().withName("kollect-reads").endMetadata()
        .withNewRoleRef().withApiGroup("rbac.authorization.k8s.io").withKind("Role")
        .withName("read-deployments").endRoleRef()
        .addNewSubject().withKind("User").withName("system:serviceaccount:ops:kollect")
        .withApiGroup("rbac.authorization.k8s.io").endSubject().build()).create();
  }

  @Test
  void aForbiddenNamespaceIsSkippedAndReportedWhileTheReadableOneIsExported() {
    cluster.namespace("allowed");
    cluster.namespace("denied");
    allowDeploymentsIn("allowed");
    cluster.deployment("allowed", "seen", "s:1", 1);
    cluster.deployment("denied", "hidden", "h:1", 1);

    try (KubernetesClient limited = cluster.clientWithToken(TOKEN);
        KollectEngine engine = KollectEngine.builder(limited).cluster("it").build()) {
      RecordingSink sink = new RecordingSink("rec");
      engine.putProfile("p", deploymentProfile());
      engine.putSink(sink, fastSink());
      TargetSpec spec = new TargetSpec(new TargetId("ops", "two-ns"), 3, "p",
          TargetScope.namespaces("allowed", "denied"), List.of("rec"), false);
      engine.putTarget(spec);
      engine.start();

      TargetStatus status = EngineIT.awaitStatus(engine, spec.id(),
          s -> s.ready() && EngineIT.is(s, Condition.DEGRADED, "True", "Forbidden"));
      assertThat(status.observedGeneration()).isEqualTo(3);
      assertThat(status.skipped()).singleElement().satisfies(sk -> {
        assertThat(sk.resource()).isEqualTo("apps/v1/Deployment");
        assertThat(sk.namespace()).isEqualTo("denied");
        assertThat(sk.reason()).isEqualTo("forbidden");
      });
      assertThat(status.condition(Condition.DEGRADED).message())
          .contains("apps/v1/Deployment", "denied");
      await().atMost(WAIT).until(() -> sink.of("allowed", "seen").size() == 1);
      assertThat(engine.awaitIdle(WAIT)).isTrue();
      assertThat(sink.records()).noneMatch(r -> "denied".equals(r.namespace()));
    }
  }
}
