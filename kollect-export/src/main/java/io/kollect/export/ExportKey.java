package io.kollect.export;

import io.kollect.extract.GroupVersionKind;
import io.kollect.extract.Record;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A record's key inside the exporter: {@link Record#key()} ({@code group/kind/namespace/name})
 * without the concatenation. The exporter holds one key per exported object in every per-object
 * map (the target's current set, each sink's enqueued and acknowledged state); a key made from a
 * record refers to that record's own type and strings (shared with the informer cache), so it
 * costs one 24-byte object instead of a concatenated string of about 80 bytes.
 *
 * <p>Equal keys have equal {@link #toString()} texts and the same {@link #hashCode()} as that
 * text, so a key read back from a checkpoint ({@link #parse}) finds the one made from a record,
 * and anything hashed by the key text (the heartbeat's slices) is unchanged. Text that is not four
 * segments is kept whole, so a checkpoint written by hand or by a test round-trips as it was.
 */
final class ExportKey {

  /** The type, or {@code null} for a key kept whole in {@link #name}. */
  private final GroupVersionKind resource;
  /** {@code ""} for a cluster-scoped object. */
  private final String namespace;
  private final String name;

  private ExportKey(GroupVersionKind resource, String namespace, String name) {
    this.resource = resource;
    this.namespace = namespace;
    this.name = name;
  }

  /** The key of {@code r}, made of its own type and strings. */
  static ExportKey of(Record r) {
    return new ExportKey(r.resource(), r.namespace() == null ? "" : r.namespace(), r.name());
  }

  /** The key whose {@link #toString()} is {@code key} (a key of a checkpoint or of a caller). */
  static ExportKey parse(String key) {
    int a = key.indexOf('/');
    int b = a < 0 ? -1 : key.indexOf('/', a + 1);
    int c = b < 0 ? -1 : key.indexOf('/', b + 1);
    if (c < 0) {
      return new ExportKey(null, "", key);
    }
    // One type instance per group/kind (the version is not part of a key), and the namespace
    // interned as the engine's keys are: a key read back costs what one made from a record does.
    GroupVersionKind type = TYPES.computeIfAbsent(key.substring(0, b),
        t -> new GroupVersionKind(t.substring(0, a).intern(), "", t.substring(a + 1).intern()));
    return new ExportKey(type, key.substring(b + 1, c).intern(), key.substring(c + 1));
  }

  /** The types of parsed keys by {@code group/kind}: as many as there are exported types. */
  private static final ConcurrentHashMap<String, GroupVersionKind> TYPES =
      new ConcurrentHashMap<>();

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof ExportKey k) || !name.equals(k.name)) {
      return false;
    }
    if (resource == null || k.resource == null) {
      return resource == k.resource;
    }
    return namespace.equals(k.namespace) && resource.kind().equals(k.resource.kind())
        && resource.group().equals(k.resource.group());
  }

  /**
   * The hash code of {@link #toString()}, computed without building it: from each part's own
   * (cached) {@link String#hashCode()}, since the hash of {@code a + b} is
   * {@code hash(a) * 31^len(b) + hash(b)}. The exporter asks it several times per record, so
   * re-reading every character was ~4 % of a first inventory's CPU.
   */
  @Override
  public int hashCode() {
    if (resource == null) {
      return name.hashCode();
    }
    int h = resource.group().hashCode();
    h = append(h, resource.kind());
    h = append(h, namespace);
    return append(h, name);
  }

  /** The hash of {@code text + "/" + s} given {@code h}, the hash of {@code text}. */
  private static int append(int h, String s) {
    return (h * 31 + '/') * pow31(s.length()) + s.hashCode();
  }

  /** Powers of 31 (int arithmetic, as String's hash) up to Kubernetes' longest name, 253. */
  private static final int[] POW31 = new int[254];

  static {
    POW31[0] = 1;
    for (int i = 1; i < POW31.length; i++) {
      POW31[i] = POW31[i - 1] * 31;
    }
  }

  private static int pow31(int n) {
    if (n < POW31.length) {
      return POW31[n];
    }
    int p = POW31[POW31.length - 1];
    for (int i = POW31.length - 1; i < n; i++) {
      p *= 31;
    }
    return p;
  }

  /** The key as {@link Record#key()} writes it: what checkpoints, logs and rejections show. */
  @Override
  public String toString() {
    return resource == null ? name
        : resource.group() + "/" + resource.kind() + "/" + namespace + "/" + name;
  }
}
