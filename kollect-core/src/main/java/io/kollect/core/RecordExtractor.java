package io.kollect.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.kollect.extract.CompiledProfile;
import io.kollect.extract.ExtractionException;
import io.kollect.extract.RecordContext;
import io.kollect.informers.ObjectOwnership;
import io.kollect.informers.ResourceType;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Converts one cached object to JSON and extracts (and scrubs) its record. The JSON tree lives
 * only for this call: what is kept is the record.
 */
final class RecordExtractor {

  private static final Logger LOG = LoggerFactory.getLogger(TargetReconciler.class);

  private final Function<GenericKubernetesResource, JsonNode> toJson;
  private final ObjectOwnership owned;

  RecordExtractor(Function<GenericKubernetesResource, JsonNode> toJson) {
    this(toJson, ObjectOwnership.ALL);
  }

  /**
   * @param owned the objects this engine owns ({@link Shard#ownership}): another shard's object
   *     yields no record
   */
  RecordExtractor(Function<GenericKubernetesResource, JsonNode> toJson, ObjectOwnership owned) {
    this.toJson = toJson;
    this.owned = owned;
  }

  /**
   * The entry of {@code obj}: the one {@code records} holds when it was extracted at the same
   * {@code resourceVersion} under the same {@code stamp}, else a fresh extraction.
   */
  TargetRecords.Entry entry(TargetRecords records, ObjectKey key, GenericKubernetesResource obj,
      TargetRecords.Stamp stamp, RecordContext ctx) {
    String rv = obj.getMetadata().getResourceVersion();
    TargetRecords.Entry old = records.get(key);
    if (old != null && old.matches(rv, stamp)) {
      return old;
    }
    records.extracted();
    return new TargetRecords.Entry(rv, stamp, extract(stamp.profile(), key.type(), obj, ctx));
  }

  /**
   * The outcome of extracting {@code obj}: its {@link io.kollect.extract.Record}, {@code null}
   * when it yields none, or the message (a {@code String}) of why it cannot be extracted.
   */
  Object extract(CompiledProfile compiled, ResourceType type, GenericKubernetesResource obj,
      RecordContext ctx) {
    if (!owned.owns(ctx.cluster(), type.group(), type.kind(), obj.getMetadata().getNamespace(),
        obj.getMetadata().getName())) {
      // Only types every shard caches whole (Namespaces) get here: the informers drop other
      // shards' objects of every other type. Their owner exports them.
      return null;
    }
    JsonNode json = toJson.apply(obj);
    if (json instanceof ObjectNode on) {
      // List items may come without apiVersion/kind; the lease's type is authoritative.
      if (!on.hasNonNull("apiVersion")) {
        on.put("apiVersion", type.apiVersion());
      }
      if (!on.hasNonNull("kind")) {
        on.put("kind", type.kind());
      }
    }
    try {
      return compiled.extract(json, ctx).orElse(null);
    } catch (ExtractionException e) {
      // One object that cannot be represented (e.g. a corrupt Helm release) must not stop the
      // target; the entry remembers the miss, so this is logged once per object version, and the
      // target's status names it. The message names the object, never a value.
      LOG.warn("target {}: skipping {} {}/{}: {}", ctx.target(), type,
          obj.getMetadata().getNamespace(), obj.getMetadata().getName(), e.getMessage());
      return e.getMessage() == null ? "extraction failed" : e.getMessage();
    }
  }
}
