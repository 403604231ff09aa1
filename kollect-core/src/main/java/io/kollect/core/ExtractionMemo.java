package io.kollect.core;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.kollect.extract.CompiledProfile;
import io.kollect.extract.Record;
import io.kollect.informers.ResourceType;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Remembers, per target, the record each cached object produced at its {@code resourceVersion}, so
 * a reconcile converts and extracts only the objects that changed since the last one. A reconcile
 * reads the whole scope (that is what makes it level-based), but an event usually changes one
 * object: without this, every event would re-serialise and re-extract every object of the target.
 *
 * <p>Entries are valid for one compiled profile; a new profile version starts afresh. Each pass
 * keeps only the objects it saw, so deleted objects are forgotten. Not thread-safe: used under the
 * target's monitor.
 */
final class ExtractionMemo {

  private record Entry(String resourceVersion, Record record) {}

  private CompiledProfile profile;
  private Map<String, Entry> entries = new HashMap<>();
  private Map<String, Entry> next;
  private long extractions;

  /** Starts a pass with {@code compiled}; entries of another profile version are dropped. */
  void begin(CompiledProfile compiled) {
    if (compiled != profile) {
      entries = new HashMap<>();
      profile = compiled;
    }
    next = new HashMap<>(Math.max(16, entries.size() * 4 / 3 + 1));
  }

  /**
   * The object's record: remembered if its {@code resourceVersion} is unchanged, else {@code
   * extract}ed now. {@code null} when the object yields no record.
   */
  Record recordOf(ResourceType type, GenericKubernetesResource obj, Supplier<Record> extract) {
    ObjectMeta m = obj.getMetadata();
    String rv = m.getResourceVersion();
    String key = type.group() + "/" + type.kind() + "/" + m.getNamespace() + "/" + m.getName();
    Entry e = entries.get(key);
    if (e == null || rv == null || !rv.equals(e.resourceVersion)) {
      extractions++;
      e = new Entry(rv, extract.get());
    }
    next.put(key, e);
    return e.record;
  }

  /** Ends a pass: what it did not see is forgotten. */
  void end() {
    entries = next;
    next = null;
  }

  /** Forgets everything (the target stopped reading). */
  void clear() {
    entries = new HashMap<>();
    profile = null;
    next = null;
  }

  /** How many objects were actually extracted so far (for tests). */
  long extractions() {
    return extractions;
  }
}
