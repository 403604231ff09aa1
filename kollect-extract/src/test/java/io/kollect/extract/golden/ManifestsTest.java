package io.kollect.extract.golden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ManifestsTest {

  private static List<JsonNode> read(String text) {
    return Manifests.read(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), "<stdin>");
  }

  private static List<String> names(List<JsonNode> objects) {
    return objects.stream().map(o -> o.path("metadata").path("name").asText()).toList();
  }

  @Test
  void aListIsReadAsItsItemsWhetherKindComesBeforeOrAfterThem() {
    String kubectlOrder = "apiVersion: v1\nitems:\n- {apiVersion: v1, kind: Service, metadata: {name: a}}\n"
        + "- {apiVersion: v1, kind: Service, metadata: {name: b}}\nkind: List\nmetadata: {}\n";
    String kindFirst = "kind: ServiceList\napiVersion: v1\nitems:\n- {apiVersion: v1, kind: Service, metadata: {name: c}}\n";
    String json = "{\"apiVersion\":\"v1\",\"items\":[{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"d\"}},"
        + "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"e\"}}]}],"
        + "\"kind\":\"List\"}";

    assertThat(names(read(kubectlOrder))).containsExactly("a", "b");
    assertThat(names(read(kindFirst))).containsExactly("c");
    assertThat(names(read(json))).as("JSON, with a list nested in a list").containsExactly("d", "e");
  }

  @Test
  void itemsOfAnObjectThatIsNotAListStayPartOfTheObject() {
    List<JsonNode> objects = read("apiVersion: example.com/v1\nkind: Basket\nmetadata: {name: x}\n"
        + "items: [apple, {count: 2}]\n---\n# only a comment\n---\n{}\n");

    assertThat(objects).singleElement().satisfies(o -> {
      assertThat(o.path("kind").asText()).isEqualTo("Basket");
      assertThat(o.path("items")).hasSize(2);
    });
    // kind after items: the first element is no Kubernetes object, so items is a plain field
    assertThat(read("items: [apple]\nkind: Basket\napiVersion: v1\nmetadata: {name: y}\n"))
        .singleElement().satisfies(o -> assertThat(o.path("items").get(0).asText()).isEqualTo("apple"));
  }

  @Test
  void objectsItemsReadAsAListButUnderAKindThatIsNotOneAreRefusedByName() {
    assertThatThrownBy(() -> read("apiVersion: v1\nitems:\n- {apiVersion: v1, kind: Service, metadata: {name: a}}\nkind: Basket\n"))
        .isInstanceOf(ManifestException.class)
        .hasMessage("<stdin>: document 1 has top-level items, read as a list's, but its kind Basket is not a list;"
            + " a list's kind ends with List");
  }

  @Test
  void aDocumentLargerThanSnakeYamlsDefaultLimitIsRead() {
    StringBuilder sb = new StringBuilder("apiVersion: v1\nkind: List\nitems:\n");
    String value = "x".repeat(1000);
    int items = 0;
    while (sb.length() < 4 * 1024 * 1024) { // past the 3,145,728 code points SnakeYAML refuses by default
      sb.append("- {apiVersion: v1, kind: ConfigMap, metadata: {name: cm-").append(items++)
          .append("}, data: {k: ").append(value).append("}}\n");
    }

    assertThat(read(sb.toString())).hasSize(items);
  }

  @Test
  void listItemsAreHandedOverWhileTheRestOfTheListIsUnread() {
    for (boolean json : new boolean[] {false, true}) {
      GeneratedList input = new GeneratedList(50_000, json);
      List<Long> servedAtItem = new ArrayList<>();
      Manifests.forEach(input, "<stdin>", o -> {
        if (servedAtItem.size() < 3) {
          servedAtItem.add(input.served);
        }
      });

      assertThat(input.itemsWritten).isEqualTo(50_000);
      // about 6 MB in all; the first item arrived after a few buffers of it, not after the list
      assertThat(input.served).as(json ? "json" : "yaml").isGreaterThan(5_000_000L);
      assertThat(servedAtItem.get(0)).as(json ? "json" : "yaml").isLessThan(200_000L);
    }
  }

  /** A kubectl-shaped list produced on demand, counting the bytes the reader has taken. */
  private static final class GeneratedList extends InputStream {
    private final int items;
    private final boolean json;
    private byte[] chunk;
    private int pos;
    private int itemsWritten;
    private boolean closed;
    long served;

    GeneratedList(int items, boolean json) {
      this.items = items;
      this.json = json;
      this.chunk = (json ? "{\"apiVersion\":\"v1\",\"items\":[" : "apiVersion: v1\nitems:\n")
          .getBytes(StandardCharsets.UTF_8);
    }

    private boolean refill() {
      if (closed) {
        return false;
      }
      String next;
      if (itemsWritten < items) {
        int i = itemsWritten++;
        next = json
            ? (i == 0 ? "" : ",") + "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"cm-" + i
                + "\",\"namespace\":\"default\"},\"data\":{\"key\":\"value-" + i + "\"}}"
            : "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cm-" + i
                + "\n    namespace: default\n  data:\n    key: value-" + i + "\n";
      } else {
        next = json ? "],\"kind\":\"List\",\"metadata\":{}}" : "kind: List\nmetadata: {}\n";
        closed = true;
      }
      chunk = next.getBytes(StandardCharsets.UTF_8);
      pos = 0;
      return true;
    }

    @Override
    public int read() {
      while (pos >= chunk.length) {
        if (!refill()) {
          return -1;
        }
      }
      served++;
      return chunk[pos++] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (len == 0) {
        return 0;
      }
      while (pos >= chunk.length) {
        if (!refill()) {
          return -1;
        }
      }
      int n = Math.min(len, chunk.length - pos);
      System.arraycopy(chunk, pos, b, off, n);
      pos += n;
      served += n;
      return n;
    }
  }
}
