package io.kollect.operator.status;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the status subresource of a Kollect object, whatever its kind: the one place where the
 * operator writes status.
 *
 * <p><b>No read before a write.</b> The write is a PUT of the object as the informer cached it,
 * with the new status, guarded by the cached {@code resourceVersion}; so a status write costs one
 * request, not a GET and a PATCH. When the cache is behind (the object changed since, or our own
 * previous write is not in the cache yet) the API server answers 409 Conflict and the write is
 * retried on a fresh read: the conflict, not every write, pays for the read.
 *
 * <p><b>Nothing unchanged is written.</b> A status equal to the one the object has (as cached) or
 * to the one this instance last wrote from the same cached version is skipped, so resyncs and
 * restarts with nothing new cost no writes.
 *
 * <p><b>Entries with one writer each.</b> A sharded target's {@code status.shards[]} entry is
 * server-side applied by its shard alone ({@link #applyEntryNow}), and the rest of that status is
 * written from the object as stored ({@link #writeNowFrom}), so that the PUT, which replaces the
 * whole status, carries the entries as they are when it lands.
 *
 * <p>Writes run on {@code executor} (one thread: the API calls of status never run on an informer
 * thread); {@link #write} returns at once.
 */
public final class StatusWriter {

  private static final Logger log = LoggerFactory.getLogger(StatusWriter.class);
  /** Conflicts retried on a fresh read before giving up until the next change. */
  static final int CONFLICT_RETRIES = 3;

  /** Where the writes go: the cluster, or a fake in unit tests. */
  public interface Api {
    /**
     * PUTs {@code object}'s status, guarded by its resourceVersion.
     *
     * @throws KubernetesClientException 409 on a conflict, 404 when the object is gone
     */
    GenericKubernetesResource putStatus(GenericKubernetesResource object);

    /** The object as stored now, or {@code null}. */
    GenericKubernetesResource get(GenericKubernetesResource object);

    /**
     * Server-side applies {@code partial} (apiVersion, kind, name, namespace and a partial
     * status) to the status subresource as {@code fieldManager}, forcing conflicts.
     *
     * @return the object as stored after the apply
     * @throws KubernetesClientException 404 when the object is gone
     */
    default GenericKubernetesResource applyStatus(GenericKubernetesResource partial,
        String fieldManager) {
      throw new UnsupportedOperationException("applyStatus");
    }
  }

  /** What this instance wrote last per object, and from which cached version. */
  private record Written(JsonNode status, String fromVersion) {}

  private final Api api;
  private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
      new com.fasterxml.jackson.databind.ObjectMapper();
  private final KubernetesSerialization serialization;
  private final Executor executor;
  private final Map<String, Written> written = new ConcurrentHashMap<>();

  public StatusWriter(KubernetesClient client, Executor executor) {
    this(clusterApi(client), client.getKubernetesSerialization(), executor);
  }

  public StatusWriter(Api api, KubernetesSerialization serialization, Executor executor) {
    this.api = api;
    this.serialization = serialization;
    this.executor = executor;
  }

  private static Api clusterApi(KubernetesClient client) {
    return new Api() {
      @Override
      public GenericKubernetesResource putStatus(GenericKubernetesResource object) {
        return client.genericKubernetesResources(object.getApiVersion(), object.getKind())
            .resource(object).updateStatus();
      }

      @Override
      public GenericKubernetesResource get(GenericKubernetesResource object) {
        var resources = client.genericKubernetesResources(object.getApiVersion(), object.getKind());
        String ns = object.getMetadata().getNamespace();
        return (ns == null ? resources.withName(object.getMetadata().getName())
            : resources.inNamespace(ns).withName(object.getMetadata().getName())).get();
      }

      @Override
      public GenericKubernetesResource applyStatus(GenericKubernetesResource partial,
          String fieldManager) {
        PatchContext apply = PatchContext.of(PatchType.SERVER_SIDE_APPLY);
        apply.setFieldManager(fieldManager);
        apply.setForce(true);
        var resources = client.genericKubernetesResources(partial.getApiVersion(),
            partial.getKind());
        String ns = partial.getMetadata().getNamespace();
        return (ns == null ? resources.resource(partial)
            : resources.inNamespace(ns).resource(partial)).subresource("status").patch(apply);
      }
    };
  }

  /**
   * Writes {@code status} (a status record of the kind, or a map) to the object, unless it already
   * has it. {@code cached} is the object as the informer holds it; it is not modified.
   */
  public void write(GenericKubernetesResource cached, Object status) {
    executor.execute(() -> writeNow(cached, status));
  }

  /**
   * The same, but the top-level status keys {@code storedKeys} are another writer's: they are
   * taken from the object as stored (as cached, then as read again on a conflict), never from
   * {@code status}.
   */
  public void write(GenericKubernetesResource cached, Object status, Set<String> storedKeys) {
    executor.execute(() -> writeNow(cached, status, storedKeys));
  }

  /** The same, on the calling thread (tests, and callers already on the writer's thread). */
  public void writeNow(GenericKubernetesResource cached, Object status) {
    writeNow(cached, status, Set.of());
  }

  public void writeNow(GenericKubernetesResource cached, Object status, Set<String> storedKeys) {
    JsonNode own = normalise(status);
    writeNowFrom(cached, base -> keepStored(own.deepCopy(), base, storedKeys));
  }

  /**
   * Writes the status {@code statusOf} makes of the object as stored: of {@code cached} first and,
   * when that write conflicts, of the object as read again. For a status that depends on what
   * other writers put into it (a sharded target's top level sums the shards' entries), so a retry
   * after a conflict never writes an aggregate of stale parts, nor drops a part written meanwhile.
   * Like {@link #writeNow(GenericKubernetesResource, Object)} otherwise: nothing unchanged is
   * written.
   */
  public void writeNowFrom(GenericKubernetesResource cached,
      Function<GenericKubernetesResource, ?> statusOf) {
    String key = key(cached);
    GenericKubernetesResource base = cached;
    String version = cached.getMetadata().getResourceVersion();
    for (int attempt = 0; ; attempt++) {
      JsonNode desired = normalise(statusOf.apply(base));
      if (desired.equals(normalise(base.getAdditionalProperties().get("status")))) {
        return;
      }
      Written last = written.get(key);
      if (attempt == 0 && last != null && last.status().equals(desired)
          && Objects.equals(last.fromVersion(), version)) {
        return; // written from this very version; the cache has not caught up yet
      }
      try {
        api.putStatus(withStatus(base, desired));
        written.put(key, new Written(desired, version));
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() == 409 && attempt < CONFLICT_RETRIES) {
          base = api.get(base);
          if (base == null) {
            return;
          }
          continue;
        }
        if (e.getCode() != 404) {
          log.warn("{}: cannot write status: {}", key, firstLine(e.getMessage()));
        }
        return;
      }
    }
  }

  /**
   * Server-side applies one entry of a map list of the status (e.g. {@code status.shards[]},
   * keyed by {@code index}) as {@code fieldManager}: that manager owns the entry and nothing else,
   * so writers of other entries and of the rest of the status never overwrite it, nor it them.
   * Force, as the manager is this writer's alone. Skipped when the object as cached already has
   * the entry, or when this instance applied it from the same cached version.
   *
   * @param list the status key of the list
   * @param keyField the list's map key, e.g. {@code index}
   * @param entry the entry (a record or a map) with its key field set
   * @return the object as stored after the apply; empty when nothing was applied
   */
  public Optional<GenericKubernetesResource> applyEntryNow(GenericKubernetesResource cached,
      String fieldManager, String list, String keyField, Object entry) {
    String key = key(cached) + " " + fieldManager;
    JsonNode desired = normalise(entry);
    JsonNode stored = listEntry(normalise(cached.getAdditionalProperties().get("status")), list,
        keyField, desired.get(keyField));
    if (desired.equals(stored)) {
      return Optional.empty();
    }
    Written last = written.get(key);
    String version = cached.getMetadata().getResourceVersion();
    if (last != null && last.status().equals(desired) && Objects.equals(last.fromVersion(), version)) {
      return Optional.empty();
    }
    GenericKubernetesResource partial = new GenericKubernetesResource();
    partial.setApiVersion(cached.getApiVersion());
    partial.setKind(cached.getKind());
    partial.setMetadata(new ObjectMetaBuilder().withName(cached.getMetadata().getName())
        .withNamespace(cached.getMetadata().getNamespace()).build());
    partial.setAdditionalProperty("status",
        Map.of(list, List.of(asMap(desired))));
    try {
      GenericKubernetesResource after = api.applyStatus(partial, fieldManager);
      written.put(key, new Written(desired, version));
      return Optional.ofNullable(after);
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        log.warn("{}: cannot apply status.{} entry {}={}: {}", key(cached), list, keyField,
            desired.get(keyField), firstLine(e.getMessage()));
      }
      return Optional.empty();
    }
  }

  /** The entry of {@code status.<list>} whose {@code keyField} is {@code key}, or {@code null}. */
  private static JsonNode listEntry(JsonNode status, String list, String keyField, JsonNode key) {
    for (JsonNode e : status.path(list)) {
      if (key != null && e.path(keyField).asText().equals(key.asText())) {
        return e;
      }
    }
    return null;
  }

  private JsonNode keepStored(JsonNode desired, GenericKubernetesResource base,
      Set<String> storedKeys) {
    if (storedKeys.isEmpty() || !(desired instanceof ObjectNode out)) {
      return desired;
    }
    JsonNode stored = normalise(base.getAdditionalProperties().get("status"));
    for (String k : storedKeys) {
      if (stored.has(k)) {
        out.set(k, stored.get(k));
      } else {
        out.remove(k);
      }
    }
    return out;
  }

  /** Forgets what was written (a new leader writes everything it has afresh). */
  public void forgetWritten() {
    written.clear();
  }

  /** Forgets one object (deleted), named {@code Kind namespace/name} or {@code Kind name}. */
  public void forget(String object) {
    written.remove(object);
    // and the entries it applied, kept as "<object> <field manager>" (names hold no spaces)
    written.keySet().removeIf(k -> k.startsWith(object + " "));
  }

  private GenericKubernetesResource withStatus(GenericKubernetesResource base, JsonNode status) {
    GenericKubernetesResource copy = new GenericKubernetesResource();
    copy.setApiVersion(base.getApiVersion());
    copy.setKind(base.getKind());
    ObjectMeta meta = new ObjectMetaBuilder(base.getMetadata()).build();
    copy.setMetadata(meta);
    base.getAdditionalProperties().forEach((k, v) -> {
      if (!"status".equals(k)) {
        copy.setAdditionalProperty(k, v);
      }
    });
    copy.setAdditionalProperty("status", asMap(status));
    return copy;
  }

  /**
   * A status tree as plain maps and lists, the form the client writes faithfully (it speaks
   * another Jackson line than these trees: given a tree it would write the tree's getters).
   */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> asMap(JsonNode status) {
    return JSON.convertValue(status, Map.class);
  }

  /** The status as the API server would store it: JSON without nulls, numbers read back alike. */
  private JsonNode normalise(Object status) {
    if (status == null) {
      return JSON.createObjectNode();
    }
    // through text, so numbers come back as from the API server (5 is an int, whatever the field);
    // a tree is written by its own Jackson line (the client would write its getters)
    String json = status instanceof JsonNode tree ? tree.toString() : serialization.asJson(status);
    try {
      return withoutNulls(JSON.readTree(json));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("the client wrote unreadable JSON", e);
    }
  }

  private static JsonNode withoutNulls(JsonNode node) {
    if (node instanceof com.fasterxml.jackson.databind.node.ObjectNode obj) {
      obj.properties().removeIf(e -> e.getValue().isNull());
      obj.forEach(StatusWriter::withoutNulls);
    } else if (node.isArray()) {
      node.forEach(StatusWriter::withoutNulls);
    }
    return node;
  }

  static String key(GenericKubernetesResource o) {
    String ns = o.getMetadata().getNamespace();
    return o.getKind() + " " + (ns == null ? "" : ns + "/") + o.getMetadata().getName();
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "(no message)";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}
