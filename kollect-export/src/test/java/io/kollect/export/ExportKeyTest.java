package io.kollect.export;

import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.extract.GroupVersionKind;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ExportKeyTest {

  private static Record record(GroupVersionKind type, String namespace, String name) {
    return new Record(Op.UPSERT, "c1", "t", "p", type, namespace, name, "uid", "1",
        Instant.EPOCH, "h", Map.of(), Map.of(), Map.of());
  }

  @Test
  void aKeyMadeFromARecordReadsAsTheRecordsKeyAndHashesLikeThatText() {
    Record r = record(new GroupVersionKind("apps", "v1", "Deployment"), "ns", "web");
    ExportKey key = ExportKey.of(r);

    assertThat(key.toString()).isEqualTo(r.key()).isEqualTo("apps/Deployment/ns/web");
    assertThat(key.hashCode()).isEqualTo(r.key().hashCode());
  }

  @Test
  void aKeyReadBackFromItsTextEqualsTheKeyOfTheRecordWhateverTheVersion() {
    Record v1 = record(new GroupVersionKind("apps", "v1", "Deployment"), "ns", "web");
    Record cluster = record(new GroupVersionKind("", "v1", "Namespace"), null, "ns");

    assertThat(ExportKey.parse(v1.key())).isEqualTo(ExportKey.of(v1))
        .hasSameHashCodeAs(ExportKey.of(v1));
    assertThat(ExportKey.of(record(new GroupVersionKind("apps", "v1beta1", "Deployment"), "ns",
        "web"))).isEqualTo(ExportKey.of(v1));
    assertThat(ExportKey.parse(cluster.key())).isEqualTo(ExportKey.of(cluster));
    assertThat(ExportKey.parse("/Namespace//ns").toString()).isEqualTo("/Namespace//ns");
  }

  @Test
  void keysDifferingInAnySegmentDiffer() {
    ExportKey key = ExportKey.parse("apps/Deployment/ns/web");

    assertThat(key).isNotEqualTo(ExportKey.parse("apps/Deployment/ns/api"))
        .isNotEqualTo(ExportKey.parse("apps/Deployment/other/web"))
        .isNotEqualTo(ExportKey.parse("apps/StatefulSet/ns/web"))
        .isNotEqualTo(ExportKey.parse("batch/Deployment/ns/web"));
  }

  @Test
  void textThatIsNotFourSegmentsIsKeptWholeAndEqualsOnlyItself() {
    ExportKey odd = ExportKey.parse("a/b");

    assertThat(odd.toString()).isEqualTo("a/b");
    assertThat(odd).isEqualTo(ExportKey.parse("a/b")).hasSameHashCodeAs("a/b")
        .isNotEqualTo(ExportKey.parse("a/b/c/d"));
  }

  @Test
  void theHashIsThatOfTheTextForEmptyPartsAndForNamesLongerThanKubernetesAllows() {
    String longName = "n".repeat(300);
    for (Record r : new Record[] {
        record(new GroupVersionKind("", "v1", "Namespace"), null, "ns"),
        record(new GroupVersionKind("", "v1", "ConfigMap"), "", ""),
        record(new GroupVersionKind("apps", "v1", "Deployment"), "team-a", longName),
        record(new GroupVersionKind("x".repeat(253), "v1", "K"), "é-ns", "ünïcode")}) {
      assertThat(ExportKey.of(r).hashCode()).as(r.key()).isEqualTo(r.key().hashCode());
      assertThat(ExportKey.parse(r.key()).hashCode()).as(r.key()).isEqualTo(r.key().hashCode());
    }
  }
}
