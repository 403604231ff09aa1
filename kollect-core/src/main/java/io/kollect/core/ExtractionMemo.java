package io.kollect.core;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.kollect.extract.CompiledProfile;
import io.kollect.extract.Record;
import io.kollect.informers.ResourceType;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Remembers, per target, the outcome each cached object produced at its {@code resourceVersion}
 * under one projection of its type, so a reconcile converts and extracts only the objects that
 * changed since the last one. A reconcile reads the whole scope (that is what makes it
 * level-based), but an event usually changes one object: without this, every event would
 * re-serialise and re-extract every object of the target.
 *
 * <p>An entry is valid for one compiled profile and one projection of its type: the informer cache
 * keeps only the fields the engine's leases ask for, so the same {@code resourceVersion} can look
 * different after the projection changed (a field another profile needs appears). A new profile
 * version starts afresh; a new projection version re-extracts the objects of that type.
 *
 * <p>Each pass keeps only the objects it saw, so deleted objects are forgotten and their extraction
 * errors cleared. Not thread-safe: used under the target's monitor.
 */
final class ExtractionMemo {

  /**
   * What extracting one object gave.
   *
   * @param record the record, or {@code null} when the object yields none
   * @param error why extraction failed, or {@code null}
   */
  record Outcome(Record record, String error) {
    static Outcome of(Record record) {
      return new Outcome(record, null);
    }

    static Outcome failed(String error) {
      return new Outcome(null, error);
    }
  }

  /**
   * Which projection of a type an object was read under.
   *
   * @param requested the version of the projection the engine requests ({@link
   *     RequestedProjections#version})
   * @param cached the version of the projection the informer cache holds
   */
  record Projection(long requested, long cached) {
    static final Projection NONE = new Projection(0, 0);
  }

  private record Entry(String resourceVersion, Projection projection, Outcome outcome) {}

  private static final Comparator<ExtractionError> ORDER = Comparator
      .comparing(ExtractionError::resource)
      .thenComparing(e -> e.namespace() == null ? "" : e.namespace())
      .thenComparing(ExtractionError::name);

  private CompiledProfile profile;
  private Map<String, Entry> entries = new HashMap<>();
  private Map<String, Entry> next;
  private final List<ExtractionError> errors = new ArrayList<>();
  private long extractions;

  /** Starts a pass with {@code compiled}; entries of another profile version are dropped. */
  void begin(CompiledProfile compiled) {
    if (compiled != profile) {
      entries = new HashMap<>();
      profile = compiled;
    }
    next = new HashMap<>(Math.max(16, entries.size() * 4 / 3 + 1));
    errors.clear();
  }

  /** {@link #recordOf(ResourceType, GenericKubernetesResource, Projection, Supplier)}, no projection. */
  Record recordOf(ResourceType type, GenericKubernetesResource obj, Supplier<Record> extract) {
    return recordOf(type, obj, Projection.NONE, () -> Outcome.of(extract.get()));
  }

  /**
   * The object's record: remembered if its {@code resourceVersion} and the type's {@code
   * projection} version are unchanged, else {@code extract}ed now. {@code null} when the object
   * yields no record (a failure is remembered and reported by {@link #errors()}).
   */
  Record recordOf(ResourceType type, GenericKubernetesResource obj, Projection projection,
      Supplier<Outcome> extract) {
    ObjectMeta m = obj.getMetadata();
    String rv = m.getResourceVersion();
    String key = type.group() + "/" + type.kind() + "/" + m.getNamespace() + "/" + m.getName();
    Entry e = entries.get(key);
    if (e == null || rv == null || !rv.equals(e.resourceVersion) || !e.projection.equals(projection)) {
      extractions++;
      e = new Entry(rv, projection, extract.get());
    }
    next.put(key, e);
    if (e.outcome.error() != null) {
      errors.add(new ExtractionError(type.toString(), m.getNamespace(), m.getName(),
          e.outcome.error()));
    }
    return e.outcome.record();
  }

  /** Ends a pass: what it did not see is forgotten. */
  void end() {
    entries = next;
    next = null;
    errors.sort(ORDER);
  }

  /** The objects of the last pass whose extraction failed, ordered by type, namespace and name. */
  List<ExtractionError> errors() {
    return List.copyOf(errors);
  }

  /** Forgets everything (the target stopped reading). */
  void clear() {
    entries = new HashMap<>();
    profile = null;
    next = null;
    errors.clear();
  }

  /** How many objects were actually extracted so far (for tests). */
  long extractions() {
    return extractions;
  }
}
