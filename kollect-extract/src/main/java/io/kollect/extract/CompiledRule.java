package io.kollect.extract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * One resource rule, compiled: its fields, its allow-lists and scrubber, and the projection trie
 * that says which parts of an object its paths can reach.
 *
 * <p>Extraction first builds a <em>view</em>: only the reachable parts of the object, scrubbed,
 * with a core Secret's {@code data}/{@code stringData} replaced by {@link SecretDataView}'s
 * per-key metadata (never the values) and without the last-applied annotation; with {@code
 * helmRelease} the decoded release is added under {@code release} and the raw {@code data} is
 * left out. Paths are then evaluated on the view. Scrubbing before evaluation is what keeps a
 * filter such as {@code env[?(@.name=="DB_PASSWORD")].value} from leaking: by the time the path
 * runs, that value is already masked.
 */
final class CompiledRule {

  static final String LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

  final ResourceRule rule;
  final GroupVersionKind gvk;
  final List<CompiledField> fields;
  private final List<Pattern> labelGlobs;
  private final List<Pattern> annotationGlobs;
  final Scrubber scrubber;
  private final boolean secret;
  private final boolean configMap;
  private final Trie reach;
  private final SecretDataView secretData;

  /** Which object keys paths can reach: {@code whole} means everything below this point. */
  static final class Trie {
    final Map<String, Trie> children = new LinkedHashMap<>();
    boolean whole;

    void add(List<String> prefix) {
      Trie t = this;
      for (String k : prefix) {
        if (t.whole) {
          return;
        }
        t = t.children.computeIfAbsent(k, x -> new Trie());
      }
      t.whole = true;
      t.children.clear();
    }
  }

  CompiledRule(ResourceRule rule, List<CompiledField> fields) {
    this(rule, fields, ExtractOptions.none());
  }

  CompiledRule(ResourceRule rule, List<CompiledField> fields, ExtractOptions options) {
    this.rule = rule;
    this.gvk = rule.gvk();
    this.fields = List.copyOf(fields);
    this.labelGlobs = rule.labels().stream().map(Globs::compileExact).toList();
    this.annotationGlobs = rule.annotations().stream().map(Globs::compileExact).toList();
    this.scrubber = new Scrubber(rule.scrubKeys());
    this.secret = gvk.group().isEmpty() && gvk.kind().equals("Secret");
    this.configMap = gvk.group().isEmpty() && gvk.kind().equals("ConfigMap");
    this.reach = new Trie();
    this.secretData = new SecretDataView(options);
    for (CompiledField f : fields) {
      reach.add(f.path.readsRoot() ? List.of() : f.path.staticPrefix());
    }
  }

  boolean selectsHelmReleasesOnly() {
    return rule.helmRelease() && (secret || configMap);
  }

  /** Record content for one object; {@code null} when the rule does not apply to it. */
  Content extract(JsonNode object, String objectKey) {
    if (selectsHelmReleasesOnly() && !HelmReleaseDecoder.isRelease(object, secret)) {
      return null;
    }
    ObjectNode view = project(object, objectKey);
    Map<String, JsonNode> values = new LinkedHashMap<>();
    for (CompiledField f : fields) {
      JsonNode v = f.evaluate(view);
      if (v != null) {
        values.put(f.name, v);
      }
    }
    JsonNode metadata = object.path("metadata");
    return new Content(
        values,
        copyAllowed(metadata.path("labels"), labelGlobs, false),
        copyAllowed(metadata.path("annotations"), annotationGlobs, true));
  }

  record Content(Map<String, JsonNode> fields, Map<String, String> labels, Map<String, String> annotations) {}

  private Map<String, String> copyAllowed(JsonNode map, List<Pattern> globs, boolean annotations) {
    if (globs.isEmpty() || !map.isObject()) {
      return Map.of();
    }
    Map<String, String> out = new TreeMap<>();
    Iterator<Map.Entry<String, JsonNode>> it = map.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      String k = e.getKey();
      if ((annotations && k.equals(LAST_APPLIED)) || !allowed(k, globs)) {
        continue;
      }
      String v = e.getValue().isTextual() ? e.getValue().textValue() : e.getValue().toString();
      out.put(k, scrubber.isSensitiveKey(k) ? Scrubber.MASK : scrubber.scrubString(v));
    }
    return out;
  }

  private static boolean allowed(String key, List<Pattern> globs) {
    for (Pattern p : globs) {
      if (p.matcher(key).matches()) {
        return true;
      }
    }
    return false;
  }

  /** The scrubbed, projected view the paths run on. */
  ObjectNode project(JsonNode object, String objectKey) {
    ObjectNode view = JsonNodeFactory.instance.objectNode();
    if (reach.whole) {
      copyTop(object, view, null);
    } else {
      copyTop(object, view, reach);
    }
    if (selectsHelmReleasesOnly()) {
      try {
        view.set("release", scrubber.scrub(HelmReleaseDecoder.decode(object, secret)));
      } catch (HelmReleaseDecoder.CorruptReleaseException e) {
        throw new ExtractionException(objectKey + ": cannot decode Helm release: " + e.getMessage());
      }
    }
    return view;
  }

  private void copyTop(JsonNode object, ObjectNode view, Trie trie) {
    Iterator<Map.Entry<String, JsonNode>> it = object.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      String k = e.getKey();
      if (trie != null && !trie.children.containsKey(k)) {
        continue;
      }
      if (isWithheld(k)) {
        continue;
      }
      JsonNode v = e.getValue();
      if (k.equals("metadata") && v.isObject() && v.path("annotations").has(LAST_APPLIED)) {
        v = withoutLastApplied(v);
      }
      Trie child = trie == null ? null : trie.children.get(k);
      if (configMap && k.equals("data") && v.has("release") && HelmReleaseDecoder.isRelease(object, false)) {
        // Helm's ConfigMap driver: data.release is the whole release (values included) merely
        // encoded; outside a helmRelease rule it is described like a Secret value, never copied.
        ObjectNode data = ((ObjectNode) v).deepCopy();
        data.set("release", secretData.describe(data.get("release")));
        v = data;
      }
      if (secret && SecretDataView.holdsSecretValues(k)) {
        // Metadata only, built by Kollect: nothing in it is a secret, so key-name scrubbing (a
        // key named "password" is the usual case) must not hide its length and digest.
        view.set(k, prune(secretData.describe(v, k.equals("data")), child));
        continue;
      }
      view.set(k, projectChild(object, k, v, child));
    }
  }

  /** The parts of a trusted (already safe) node that the trie reaches. */
  private static JsonNode prune(JsonNode value, Trie trie) {
    if (trie == null || trie.whole || !value.isObject()) {
      return value;
    }
    ObjectNode out = JsonNodeFactory.instance.objectNode();
    for (Map.Entry<String, Trie> c : trie.children.entrySet()) {
      JsonNode v = value.get(c.getKey());
      if (v != null) {
        out.set(c.getKey(), prune(v, c.getValue()));
      }
    }
    return out;
  }

  private boolean isWithheld(String topKey) {
    return selectsHelmReleasesOnly() && (topKey.equals("data") || topKey.equals("binaryData"));
  }

  private static JsonNode withoutLastApplied(JsonNode metadata) {
    ObjectNode m = ((ObjectNode) metadata).deepCopy();
    ((ObjectNode) m.get("annotations")).remove(LAST_APPLIED);
    return m;
  }

  private JsonNode projectChild(JsonNode parent, String key, JsonNode value, Trie trie) {
    if (value.isNull()) {
      return value;
    }
    if (scrubber.isSensitiveKey(key) || (key.equals("value") && isSensitivePair(parent))) {
      return JsonNodeFactory.instance.textNode(Scrubber.MASK);
    }
    if (trie == null || trie.whole || !value.isObject()) {
      return scrubber.scrub(value);
    }
    ObjectNode out = JsonNodeFactory.instance.objectNode();
    for (Map.Entry<String, Trie> c : trie.children.entrySet()) {
      JsonNode v = value.get(c.getKey());
      if (v != null) {
        out.set(c.getKey(), projectChild(value, c.getKey(), v, c.getValue()));
      }
    }
    return out;
  }

  private boolean isSensitivePair(JsonNode parent) {
    return scrubber.masksValueOf(parent);
  }

  /** Static key paths the rule reads, for projection stores; {@code null} for the whole object. */
  List<List<String>> keepPaths() {
    List<List<String>> out = new ArrayList<>();
    if (reach.whole) {
      return null; // the informers' convention (LeaseRequest.keepPaths): the whole object
    }
    for (String meta : List.of("name", "namespace", "uid", "resourceVersion")) {
      out.add(List.of("metadata", meta));
    }
    if (!labelGlobs.isEmpty() || (configMap && rule.helmRelease())) {
      out.add(List.of("metadata", "labels"));
    }
    if (!annotationGlobs.isEmpty()) {
      out.add(List.of("metadata", "annotations"));
    }
    if (selectsHelmReleasesOnly()) {
      out.add(List.of("data"));
      if (secret) {
        out.add(List.of("type"));
      }
    }
    collect(reach, new ArrayList<>(), out);
    if (secret) {
      // data.<key>.certificate.notAfter exists only in the metadata view; the store keeps the value.
      out.replaceAll(p -> p.size() > 2 && SecretDataView.holdsSecretValues(p.get(0)) ? p.subList(0, 2) : p);
    }
    if (configMap && !selectsHelmReleasesOnly() && out.stream().anyMatch(p -> p.get(0).equals("data"))) {
      // A Helm ConfigMap's data.release is described, not copied: the owner label must be kept
      // to recognise one in a projected object, and data.release.length only exists in the view.
      out.replaceAll(p -> p.size() > 2 && p.get(0).equals("data") && p.get(1).equals("release") ? p.subList(0, 2) : p);
      out.add(List.of("metadata", "labels", "owner"));
    }
    return dedupe(out);
  }

  private void collect(Trie t, List<String> at, List<List<String>> out) {
    if (t.whole) {
      if (!(selectsHelmReleasesOnly() && !at.isEmpty() && at.get(0).equals("release"))) {
        out.add(List.copyOf(at));
      }
      return;
    }
    for (Map.Entry<String, Trie> c : t.children.entrySet()) {
      if (selectsHelmReleasesOnly() && at.isEmpty() && c.getKey().equals("release")) {
        continue; // served by data
      }
      at.add(c.getKey());
      collect(c.getValue(), at, out);
      at.remove(at.size() - 1);
    }
  }

  private static List<List<String>> dedupe(List<List<String>> paths) {
    List<List<String>> out = new ArrayList<>();
    for (List<String> p : paths) {
      boolean covered = false;
      for (List<String> q : paths) {
        if (q != p && q.size() < p.size() && p.subList(0, q.size()).equals(q)) {
          covered = true;
          break;
        }
      }
      if (!covered && !out.contains(p)) {
        out.add(p);
      }
    }
    return List.copyOf(out);
  }
}
