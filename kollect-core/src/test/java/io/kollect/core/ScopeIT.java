package io.kollect.core;

import static io.kollect.core.EngineIT.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Each kind of target scope selects exactly its objects and follows changes of membership. */
class ScopeIT {

  @RegisterExtension
  static final PerClassApiServer api = new PerClassApiServer();

  private RecordingSink run(TargetScope scope) {
    return run(scope, ns -> true);
  }

  private RecordingSink run(TargetScope scope, java.util.function.Predicate<String> filter) {
    KollectEngine engine = KollectEngine.builder(api.cluster().client()).cluster("it")
        .namespaceFilter(filter).build();
    api.closedAfterTest(engine);
    return OneTarget.ready(engine, new RecordingSink("rec"), new TargetSpec(
        new TargetId("kollect", "scoped"), 1, "p", scope, List.of("rec"), false)).sink();
  }

  private static List<String> upserted(RecordingSink sink) {
    return sink.ops(Op.UPSERT).stream().map(r -> r.namespace() + "/" + r.name()).distinct()
        .sorted().toList();
  }

  private void label(String ns, String name, Map<String, String> labels) {
    api.cluster().client().apps().deployments().inNamespace(ns).withName(name)
        .edit(d -> { d.getMetadata().setLabels(labels); return d; });
  }

  private void labelNamespace(String ns, Map<String, String> labels) {
    api.cluster().client().namespaces().withName(ns)
        .edit(n -> { n.getMetadata().setLabels(labels); return n; });
  }

  @Test
  void aNamespaceSelectorFollowsNamespacesAsTheirLabelsChange() {
    api.cluster().namespace("sel-x", Map.of("team", "x"));
    api.cluster().namespace("sel-y", Map.of("team", "y"));
    api.cluster().deployment("sel-x", "in", "i:1", 1);
    api.cluster().deployment("sel-y", "out", "o:1", 1);
    LabelSelector teamX = new LabelSelectorBuilder().addToMatchLabels("team", "x").build();
    RecordingSink sink = run(new TargetScope(List.of(), teamX, null, List.of()));
    await().atMost(WAIT).until(() -> sink.size() >= 1);
    assertThat(upserted(sink)).containsExactly("sel-x/in");

    labelNamespace("sel-y", Map.of("team", "x"));
    await().atMost(WAIT).until(() -> sink.of("sel-y", "out").size() == 1);

    labelNamespace("sel-x", Map.of("team", "z"));
    await().atMost(WAIT).until(() -> sink.of("sel-x", "in").size() == 2);
    assertThat(sink.of("sel-x", "in").get(1).op()).isEqualTo(Op.DELETE);
    assertThat(upserted(sink)).containsExactly("sel-x/in", "sel-y/out");
  }

  @Test
  void aNamesScopeExportsOnlyTheNamedObjects() {
    api.cluster().namespace("names");
    api.cluster().deployment("names", "keep", "k:1", 1);
    api.cluster().deployment("names", "skip", "s:1", 1);
    RecordingSink sink = run(new TargetScope(List.of("names"), null, null, List.of("keep", "later")));
    await().atMost(WAIT).until(() -> sink.size() >= 1);
    api.cluster().deployment("names", "later", "l:1", 1);
    api.cluster().deployment("names", "other", "o:1", 1);
    await().atMost(WAIT).until(() -> sink.of("names", "later").size() == 1);
    assertThat(upserted(sink)).containsExactly("names/keep", "names/later");
  }

  @Test
  void aLabelSelectorScopeAddsAndTombstonesObjectsAsTheirLabelsChange() {
    api.cluster().namespace("labels");
    api.cluster().deployment("labels", "yes", "y:1", 1, Map.of("export", "yes"));
    api.cluster().deployment("labels", "no", "n:1", 1, Map.of("export", "no"));
    LabelSelector exported = new LabelSelectorBuilder().addToMatchLabels("export", "yes").build();
    RecordingSink sink = run(new TargetScope(List.of("labels"), null, exported, List.of()));
    await().atMost(WAIT).until(() -> sink.size() >= 1);
    assertThat(upserted(sink)).containsExactly("labels/yes");

    label("labels", "no", Map.of("export", "yes"));
    await().atMost(WAIT).until(() -> sink.of("labels", "no").size() == 1);
    label("labels", "yes", Map.of("export", "no"));
    await().atMost(WAIT).until(() -> sink.of("labels", "yes").size() == 2);
    Record last = sink.of("labels", "yes").get(1);
    assertThat(last.op()).isEqualTo(Op.DELETE);
  }

  @Test
  void theOperatorWideNamespaceFilterExcludesNamespacesFromEveryScope() {
    api.cluster().namespace("filter-in");
    api.cluster().namespace("filter-out");
    api.cluster().deployment("filter-in", "a", "a:1", 1);
    api.cluster().deployment("filter-out", "b", "b:1", 1);
    RecordingSink sink = run(TargetScope.everything(), ns -> !ns.equals("filter-out"));
    await().atMost(WAIT).until(() -> sink.of("filter-in", "a").size() == 1);
    api.cluster().deployment("filter-in", "c", "c:1", 1);
    await().atMost(WAIT).until(() -> sink.of("filter-in", "c").size() == 1);
    assertThat(sink.records()).noneMatch(r -> "filter-out".equals(r.namespace()));
  }
}
