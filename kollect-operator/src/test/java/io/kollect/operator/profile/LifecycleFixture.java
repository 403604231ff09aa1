package io.kollect.operator.profile;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.core.lifecycle.ProfileExperiments;
import io.kollect.core.lifecycle.ProfileHistory;
import io.kollect.core.lifecycle.ProfileRevision;
import io.kollect.extract.ProfileLoader;
import io.kollect.extract.ProfileSpec;
import io.kollect.operator.cluster.TestCluster;
import io.kollect.operator.crd.KollectProfile;
import io.kollect.operator.crd.KollectProfileStatus;
import io.kollect.operator.targets.CrTranslation;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What the profile lifecycle ITs share: three ConfigMaps per namespace (only {@code cm-1} has the
 * label {@code tier}), a baseline profile extracting {@code data.a} and a candidate that also
 * copies the {@code tier} label (so it changes {@code cm-1}'s record and no other), a target per
 * namespace sending to a loopback receiver that keeps every record it gets.
 */
public final class LifecycleFixture implements AutoCloseable {

  static final String OPERATOR_NS = "kollect-system";
  private static final ObjectMapper JSON = new ObjectMapper();

  static final String BASELINE_YAML = """
      resources:
        - version: v1
          kind: ConfigMap
          fields:
            - {name: a, path: "{.data.a}"}
      """;
  public static final String CANDIDATE_YAML = """
      resources:
        - version: v1
          kind: ConfigMap
          labels: ["tier"]
          fields:
            - {name: a, path: "{.data.a}"}
      """;
  static final String OTHER_YAML = """
      resources:
        - version: v1
          kind: ConfigMap
          fields:
            - {name: b, path: "{.data.b}"}
      """;
  public static final ProfileSpec BASELINE = ProfileLoader.parse(BASELINE_YAML, "baseline");
  public static final ProfileSpec CANDIDATE = ProfileLoader.parse(CANDIDATE_YAML, "candidate");
  static final ProfileSpec OTHER = ProfileLoader.parse(OTHER_YAML, "other");

  final TestCluster cluster;
  final KubernetesClient client;
  private final HttpServer receiver;
  final List<JsonNode> received = new CopyOnWriteArrayList<>();

  public LifecycleFixture(TestCluster cluster) throws IOException {
    this.cluster = cluster;
    this.client = cluster.client();
    cluster.namespace(OPERATOR_NS);
    receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    receiver.createContext("/ingest", ex -> {
      JSON.readTree(ex.getRequestBody().readAllBytes()).forEach(received::add);
      ex.sendResponseHeaders(204, -1);
      ex.close();
    });
    receiver.start();
  }

  /** Namespace {@code ns} with its ConfigMaps, sink and target, and profile {@code profile}. */
  public void setUp(String ns, String profile) {
    cluster.namespace(ns);
    cluster.apply("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectProfile
        metadata: {name: %s}
        spec:
        %s
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: hook, namespace: %s}
        spec:
          type: http
          http: {url: "http://127.0.0.1:%d/ingest"}
          batch: {linger: 50ms}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata: {name: t, namespace: %s}
        spec:
          profileRef: %s
          scope: {namespaces: [%s]}
          sinkRefs: [hook]
        """.formatted(profile, BASELINE_YAML.indent(2), ns, receiver.getAddress().getPort(), ns,
        profile, ns));
    for (int i = 1; i <= 3; i++) {
      cluster.apply("""
          apiVersion: v1
          kind: ConfigMap
          metadata: {name: cm-%d, namespace: %s, labels: {%s}}
          data: {a: "v%d", b: "w%d"}
          """.formatted(i, ns, i == 1 ? "tier: gold" : "", i, i));
    }
  }

  /** The records received for objects of namespace {@code ns}. */
  List<JsonNode> records(String ns) {
    return received.stream().filter(r -> ns.equals(r.path("namespace").asText())).toList();
  }

  KollectProfile profile(String name) {
    return client.resources(KollectProfile.class).withName(name).get();
  }

  public KollectProfileStatus status(String name) {
    KollectProfile p = profile(name);
    return p == null || p.getStatus() == null ? new KollectProfileStatus(null, null)
        : p.getStatus();
  }

  /** The revision name of {@code spec} as {@code profile}'s spec. */
  public static String revision(String profile, ProfileSpec spec) {
    return ProfileRevision.of(profile, spec).name();
  }

  /** The profile's spec now, as its revision name. */
  String specRevision(String profile) {
    return revision(profile, CrTranslation.profile(profile(profile)));
  }

  /** Awaits the operator having seen the baseline and delivered its three records. */
  public void awaitBaseline(String ns, String profile) {
    await().atMost(Duration.ofSeconds(60)).until(() -> records(ns).size() == 3
        && revision(profile, BASELINE).equals(status(profile).currentRevision()));
  }

  /** The store the CLI uses: no engine, the cluster's ControllerRevisions and status. */
  ControllerRevisionHistory history() {
    return new ControllerRevisionHistory(client, OPERATOR_NS);
  }

  /** The experiments API as the CLI uses it (no engine). */
  ProfileExperiments control() {
    return control(history());
  }

  static ProfileExperiments control(ProfileHistory history) {
    return ProfileExperiments.builder(history).build();
  }

  @Override
  public void close() {
    receiver.stop(0);
  }
}
