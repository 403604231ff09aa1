package io.kollect.extract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class KubectlPathTest {

  private static String jayway(String kubectl) throws PathSyntaxException {
    return KubectlPath.translate(kubectl).jayway();
  }

  @Test
  void namesAreEmittedInBracketNotationSoSlashesAndDotsNeverConfuseJayway() throws Exception {
    assertThat(jayway("{.metadata.labels.app\\.kubernetes\\.io/name}"))
        .isEqualTo("$['metadata']['labels']['app.kubernetes.io/name']");
    assertThat(jayway(".metadata.labels['it\\'s']")).isEqualTo("$['metadata']['labels']['it\\'s']");
  }

  @Test
  void filterReferencesAreTranslatedAndLiteralsKept() throws Exception {
    assertThat(jayway("{.status.conditions[?(@.type==\"Ready\")].status}"))
        .isEqualTo("$['status']['conditions'][?(@['type']==\"Ready\")]['status']");
    assertThat(jayway(".items[?(@.metadata.labels.app\\.kubernetes\\.io/name=='a.b')]"))
        .isEqualTo("$['items'][?(@['metadata']['labels']['app.kubernetes.io/name']=='a.b')]");
    assertThat(jayway(".a[?(@.x > 1)]")).isEqualTo("$['a'][?(@['x'] > 1)]");
  }

  @Test
  void staticPrefixStopsAtTheFirstDynamicSegment() throws Exception {
    assertThat(KubectlPath.translate(".spec.template.spec.containers[*].image").staticPrefix())
        .containsExactly("spec", "template", "spec", "containers");
    assertThat(KubectlPath.translate(".metadata.labels['a.b/c']").staticPrefix())
        .containsExactly("metadata", "labels", "a.b/c");
    assertThat(KubectlPath.translate("..name").staticPrefix()).isEmpty();
    assertThat(KubectlPath.translate(".spec.containers[0].name").staticPrefix()).isEqualTo(List.of("spec", "containers"));
    assertThat(KubectlPath.translate(".a[?(@.x == $.spec.y)]").readsRoot()).isTrue();
  }

  @Test
  void syntaxErrorsCarryTheColumn() {
    assertThatThrownBy(() -> KubectlPath.translate("{.status.conditions]}"))
        .hasMessage("unexpected ']' at column 20");
    assertThatThrownBy(() -> KubectlPath.translate(".spec..")).hasMessage("expected a field name after '..' at column 6");
    assertThatThrownBy(() -> KubectlPath.translate(".spec.containers[0")).hasMessage("'[' is never closed at column 17");
    assertThatThrownBy(() -> KubectlPath.translate(".a[?(@.x==1]")).hasMessage("'(' is never closed at column 5");
    assertThatThrownBy(() -> KubectlPath.translate(".a[?()]")).hasMessage("empty filter at column 5");
    assertThatThrownBy(() -> KubectlPath.translate(".a\\b")).hasMessage("only '.' can be escaped with '\\' at column 3");
    assertThatThrownBy(() -> KubectlPath.translate("{.a")).hasMessage("'{' is never closed at column 1");
  }
}
