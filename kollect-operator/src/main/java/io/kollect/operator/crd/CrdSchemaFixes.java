package io.kollect.operator.crd;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What the CRD classes cannot say and fabric8's crd-generator (7.5.2) cannot emit, set on the
 * generated YAML by the build (the {@code process-classes} phase, right after the generator and
 * before {@code deploy/crds} is refreshed from it; see kollect-operator's pom.xml).
 *
 * <p>Today one fix: {@code KollectTarget.status.shards} is a map list keyed by {@code index}
 * ({@code x-kubernetes-list-type: map}, {@code x-kubernetes-list-map-keys: [index]}, the key
 * required as the API server demands). Without it the list is atomic for server-side apply and
 * each shard's apply of its own entry would replace the other shards' entries.
 *
 * <p>The YAML is read into fabric8's CRD model and written back with the serialisation the
 * generator itself uses, so everything but the fix stays byte for byte as generated.
 */
public final class CrdSchemaFixes {

  /** A list property that server-side apply must merge by key. */
  record MapList(String crdFile, List<String> path, List<String> keys) {}

  static final List<MapList> MAP_LISTS = List.of(
      new MapList("kollecttargets.kollect.io-v1.yml", List.of("status", "shards"),
          List.of("index")));

  private static final String HEADER_PREFIX = "# ";
  private static final String FIX_NOTE =
      "# Post-processed by io.kollect.operator.crd.CrdSchemaFixes (x-kubernetes-list-type).\n";

  private CrdSchemaFixes() {}

  /**
   * Applies the fixes to the generated CRD files in a directory.
   *
   * @param args one argument: the directory (target/classes/META-INF/fabric8)
   */
  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      throw new IllegalArgumentException("usage: CrdSchemaFixes <directory of generated CRDs>");
    }
    fixDirectory(Path.of(args[0]));
  }

  static void fixDirectory(Path dir) throws IOException {
    KubernetesSerialization serialization = new KubernetesSerialization();
    for (MapList fix : MAP_LISTS) {
      Path file = dir.resolve(fix.crdFile());
      if (!Files.exists(file)) {
        throw new IllegalStateException(file + ": not generated; cannot make "
            + String.join(".", fix.path()) + " a map list");
      }
      Files.writeString(file, fix(Files.readString(file), fix, serialization));
    }
  }

  /** The CRD YAML {@code yaml} with {@code fix} applied; the generator's header comment kept. */
  static String fix(String yaml, MapList fix, KubernetesSerialization serialization) {
    List<String> comments = new ArrayList<>();
    for (String line : yaml.split("\n", -1)) {
      if (!line.startsWith(HEADER_PREFIX)) {
        break;
      }
      comments.add(line + "\n");
    }
    CustomResourceDefinition crd = serialization.unmarshal(yaml, CustomResourceDefinition.class);
    for (CustomResourceDefinitionVersion version : crd.getSpec().getVersions()) {
      mapList(version.getSchema().getOpenAPIV3Schema(), fix, crd.getMetadata().getName() + " "
          + version.getName());
    }
    String body = serialization.asYaml(crd);
    // asYaml starts with a document marker where the generator puts its comment.
    body = body.startsWith("---\n") ? body.substring("---\n".length()) : body;
    StringBuilder out = new StringBuilder();
    comments.forEach(out::append);
    if (!comments.contains(FIX_NOTE)) {
      out.append(FIX_NOTE);
    }
    return out.append(body).toString();
  }

  /**
   * Makes the array at {@code fix.path()} under {@code root} a map list.
   *
   * @throws IllegalStateException naming the CRD version and the path when it is not an array of
   *     objects having the key properties (a renamed field must not silently lose the fix)
   */
  static void mapList(JSONSchemaProps root, MapList fix, String where) {
    JSONSchemaProps node = root;
    StringBuilder path = new StringBuilder();
    for (String step : fix.path()) {
      path.append(path.length() == 0 ? "" : ".").append(step);
      node = node.getProperties() == null ? null : node.getProperties().get(step);
      if (node == null) {
        throw new IllegalStateException(where + ": " + path + ": no such property in the schema");
      }
    }
    JSONSchemaProps items = node.getItems() == null ? null : node.getItems().getSchema();
    if (!"array".equals(node.getType()) || items == null || items.getProperties() == null) {
      throw new IllegalStateException(where + ": " + path + ": not an array of objects");
    }
    List<String> required = items.getRequired() == null ? new ArrayList<>()
        : new ArrayList<>(items.getRequired());
    for (String key : fix.keys()) {
      if (!items.getProperties().containsKey(key)) {
        throw new IllegalStateException(where + ": " + path + ": items have no key property '"
            + key + "'");
      }
      if (!required.contains(key)) {
        required.add(key);
      }
    }
    items.setRequired(required);
    node.setXKubernetesListType("map");
    node.setXKubernetesListMapKeys(List.copyOf(fix.keys()));
  }
}
