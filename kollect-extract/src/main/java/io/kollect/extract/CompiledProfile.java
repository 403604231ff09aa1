package io.kollect.extract;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A validated profile with every path compiled once: turns objects into scrubbed {@link Record}s.
 * Immutable and thread-safe; build it with {@link ProfileCompiler#compile}.
 */
public final class CompiledProfile {

  private final String name;
  private final Map<GroupVersionKind, CompiledRule> rules;
  private final List<String> warnings;
  private final BoundedPool<String, String> namespaces = new BoundedPool<>(10_000);

  CompiledProfile(String name, List<CompiledRule> rules) {
    this(name, rules, List.of());
  }

  CompiledProfile(String name, List<CompiledRule> rules, List<String> warnings) {
    this.name = name;
    this.warnings = List.copyOf(warnings);
    Map<GroupVersionKind, CompiledRule> m = new LinkedHashMap<>();
    for (CompiledRule r : rules) {
      m.put(r.gvk, r);
    }
    this.rules = m;
  }

  /** The profile's name, copied into every record. */
  public String name() {
    return name;
  }

  /**
   * Settings that were accepted but have no effect, each naming the field and what happens
   * instead, e.g. {@code resources[0].includeSecretData is ignored: Secret values are never
   * exported; ...}. Hosts show them (a status condition, a CLI warning); empty for most profiles.
   */
  public List<String> warnings() {
    return warnings;
  }

  /** The resource types this profile collects, in profile order. */
  public List<GroupVersionKind> resources() {
    return List.copyOf(rules.keySet());
  }

  /** Whether objects of this type are collected (group, version and kind must all match). */
  public boolean matches(GroupVersionKind gvk) {
    return rules.containsKey(gvk);
  }

  /**
   * Extracts one object (the JSON of a Kubernetes object, as the API returns it) into an UPSERT
   * record: declared fields, allow-listed labels and annotations, all scrubbed, plus the content
   * hash. The object is never modified and the record shares no mutable state with it.
   *
   * @return empty when the object's type is not in the profile, or when its rule collects Helm
   *     releases ({@code helmRelease: true}) and the object is not one
   * @throws ExtractionException when the object has no {@code metadata.name} or its Helm release
   *     data cannot be decoded
   */
  public Optional<Record> extract(JsonNode object, RecordContext ctx) {
    String apiVersion = object.path("apiVersion").asText("");
    String kind = object.path("kind").asText("");
    if (apiVersion.isEmpty() || kind.isEmpty()) {
      return Optional.empty();
    }
    GroupVersionKind gvk = GroupVersionKind.of(apiVersion, kind);
    CompiledRule rule = rules.get(gvk);
    if (rule == null) {
      return Optional.empty();
    }
    // One type instance and one string per namespace for every record of the profile: an
    // inventory holds a record per object, and these repeat across all of them.
    gvk = rule.gvk;
    JsonNode metadata = object.path("metadata");
    String objName = metadata.path("name").asText("");
    String text = metadata.path("namespace").asText("");
    String namespace = namespaces.intern(text, text);
    namespace = namespace.isEmpty() ? null : namespace;
    String key = gvk.group() + "/" + gvk.kind() + "/" + (namespace == null ? "" : namespace) + "/" + objName;
    if (objName.isEmpty()) {
      throw new ExtractionException(gvk + " object without metadata.name cannot be extracted");
    }
    CompiledRule.Content c = rule.extract(object, key);
    if (c == null) {
      return Optional.empty();
    }
    ContentHash hash = Records.hashOf(gvk, namespace, objName, c.fields(), c.labels(), c.annotations());
    Instant observedAt = ctx.observedAt();
    return Optional.of(
        new Record(
            Op.UPSERT,
            ctx.cluster(),
            ctx.target(),
            name,
            gvk,
            namespace,
            objName,
            textOrNull(metadata.path("uid")),
            textOrNull(metadata.path("resourceVersion")),
            observedAt,
            hash,
            c.fields(),
            c.labels(),
            c.annotations(),
            null));
  }

  private static String textOrNull(JsonNode n) {
    return n.isValueNode() && !n.isNull() ? n.asText() : null;
  }

  /**
   * The key paths an informer's projection store must keep for this resource type so that
   * extraction from the projected object gives the same record as from the full object: each
   * path's static key prefix (up to its first wildcard, index, filter or recursive segment), the
   * object's identity ({@code metadata.name/namespace/uid/resourceVersion}), {@code
   * metadata.labels}/{@code metadata.annotations} when allow-lists are set, and the whole {@code
   * data} for Helm release rules. Every key path is non-empty; the list can go straight into an
   * informer lease request.
   *
   * @return the key paths; {@code null} when the whole object is needed (a path starts with {@code
   *     ..} or a filter reads from {@code $}), the same convention as the informers' {@code
   *     LeaseRequest.keepPaths}; an empty list when the type is not in the profile
   */
  public List<List<String>> keepPaths(GroupVersionKind gvk) {
    CompiledRule rule = rules.get(gvk);
    return rule == null ? List.of() : rule.keepPaths();
  }

  @Override
  public String toString() {
    List<String> r = new ArrayList<>();
    rules.keySet().forEach(g -> r.add(g.toString()));
    return "CompiledProfile[" + name + " " + r + "]";
  }
}
