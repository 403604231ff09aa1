package io.kollect.informers;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListMeta;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.ObjectReader;

/**
 * Decodes a page of a LIST response keeping, of each object, only what the informer's
 * {@link ObjectProjection} keeps: a field the projection drops is skipped in the JSON, never
 * decoded. fabric8 decodes the whole page into whole objects (managed fields, the last-applied
 * annotation, every field of the spec and status), which the store then projects and drops; on a
 * first inventory that is most of what the informer allocates.
 *
 * <p>What it returns is not the projected object but a superset the projection reduces to the
 * same thing: the objects' maps hold the keys the projection reads (with their values decoded as
 * fabric8's mapper decodes them), their metadata every field but those no projected object keeps.
 * The store and the events project it as they project fabric8's objects.
 *
 * <p>Values are decoded by fabric8's default mapper. A client whose own serialization decodes
 * otherwise (an embedder's mapper with other number types, say) is found by {@link #of}'s probe,
 * and keeps fabric8's decoding.
 */
final class ProjectedListReader {

  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(ProjectedListReader.class);

  /** fabric8's default mapper, configured as its serialization configures it. */
  private static final ObjectMapper MAPPER = DefaultMapper.configured();
  private static final ObjectReader UNTYPED = MAPPER.readerFor(Object.class);
  private static final ObjectReader LIST_META = MAPPER.readerFor(ListMeta.class);
  private static final ObjectReader TEXT = MAPPER.readerFor(String.class);
  private static final AtomicBoolean FALLBACK_LOGGED = new AtomicBoolean();
  /** One metadata reader per set of dropped fields: a few per process. */
  private static final Map<Set<String>, ObjectReader> METADATA = new ConcurrentHashMap<>();

  /**
   * A page of each value kind and metadata field fabric8's decoding has a rule for: numbers of
   * each size and form, nulls, nested lists and maps, owner references, an unknown metadata field,
   * the top-level names its model ignores.
   */
  static final String PROBE = """
      {"kind":"ProbeList","apiVersion":"v1","metadata":{"resourceVersion":"12","continue":"c",\
      "remainingItemCount":3},"items":[\
      {"metadata":{"name":"a","generateName":"a-","namespace":"n","uid":"u","resourceVersion":"11",\
      "generation":2,"creationTimestamp":"2026-01-01T00:00:00Z",\
      "deletionTimestamp":"2026-01-02T00:00:00Z","deletionGracePeriodSeconds":30,"selfLink":"/a",\
      "finalizers":["example.com/f"],"labels":{"app":"web","tier":""},\
      "annotations":{"team":"x","kubectl.kubernetes.io/last-applied-configuration":"{}"},\
      "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"o","uid":"ou",\
      "controller":true,"blockOwnerDeletion":false},{"apiVersion":"v1","kind":"K","name":"p",\
      "uid":"pu"}],\
      "managedFields":[{"manager":"m","operation":"Update","apiVersion":"v1",\
      "time":"2026-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{}}}}],\
      "unknownField":{"z":1}},\
      "data":{"s":"text","i":1,"l":12345678901,"big":123456789012345678901234567890,"f":1.5,\
      "e":2.5e-3,"z":-0.0,"t":true,"no":false,"n":null,"list":[1,"a",{"k":[]},[],null],"m":{}},\
      "spec":{"replicas":3,"template":{"containers":[{"name":"c","image":"i","ports":[{"x":1}]},\
      {"name":"d"},"scalar",null]}},"status":"scalar","nothing":null,\
      "additionalProperties":{"kind":"Other"},"additionalPropertiesNode":{"kind":"Other"}},\
      {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"b"},"spec":[1,2],\
      "data":{"s":"other"}}]}""";

  private final ObjectProjection projection;
  private final ObjectProjection.KeptKeys kept;
  private final ObjectReader metadata;
  /** The operation's apiVersion and kind, which fabric8 sets on items that lack them. */
  private final String apiVersion;
  private final String kind;

  private ProjectedListReader(ObjectProjection projection, String apiVersion, String kind) {
    this.projection = projection;
    this.kept = projection.keptKeys();
    this.metadata = METADATA.computeIfAbsent(projection.droppedMetadata(),
        ProjectedListReader::metadataReader);
    this.apiVersion = apiVersion;
    this.kind = kind;
  }

  /**
   * A reader for {@code projection}'s informers of the operation's {@code apiVersion} and
   * {@code kind}, or {@code null} when {@code client} decodes {@link #PROBE} to anything the
   * projection keeps differently: then the informer keeps fabric8's decoding.
   */
  static ProjectedListReader of(ObjectProjection projection, KubernetesSerialization client,
      String apiVersion, String kind) {
    ProjectedListReader reader = new ProjectedListReader(projection, apiVersion, kind);
    String failure;
    try {
      GenericKubernetesResourceList theirs =
          client.unmarshal(PROBE, GenericKubernetesResourceList.class);
      // one decoding serves both checks: projecting trims the client's metadata in place, and
      // trimming twice is trimming once
      if (reader.readsAs(theirs) && (projection.isFull()
          || new ProjectedListReader(ObjectProjection.full(), apiVersion, kind).readsAs(theirs))) {
        return reader;
      }
      failure = "it decodes the probe page otherwise than fabric8's default mapper";
    } catch (RuntimeException e) {
      failure = "the probe failed: " + e;
    }
    // once at INFO: every informer of such a client would say the same
    if (FALLBACK_LOGGED.compareAndSet(false, true)) {
      LOG.info("List pages are decoded whole by the client's own serialization, then projected"
          + " ({}: {})", kind, failure);
    } else {
      LOG.debug("List pages of {} are decoded whole ({})", kind, failure);
    }
    return null;
  }

  /**
   * Whether this reader reads {@link #PROBE} to what {@code theirs} (the client's decoding of it)
   * projects to.
   */
  private boolean readsAs(GenericKubernetesResourceList theirs) {
    GenericKubernetesResourceList ours = read(PROBE.getBytes(StandardCharsets.UTF_8));
    if (!Objects.equals(theirs.getMetadata(), ours.getMetadata())
        || theirs.getItems().size() != ours.getItems().size()) {
      return false;
    }
    for (int i = 0; i < ours.getItems().size(); i++) {
      // fabric8 sets what the items lack after decoding; so does read()
      GenericKubernetesResource item = theirs.getItems().get(i);
      completeTypeOf(item);
      if (!projection.apply(item).equals(projection.apply(ours.getItems().get(i)))) {
        return false;
      }
    }
    return true;
  }

  /**
   * Decodes one LIST response body.
   *
   * @throws JacksonException when the body is not a list of objects
   */
  GenericKubernetesResourceList read(byte[] body) {
    GenericKubernetesResourceList list = new GenericKubernetesResourceList();
    try (JsonParser p = MAPPER.createParser(body)) {
      expect(p, p.nextToken(), JsonToken.START_OBJECT);
      while (p.nextToken() == JsonToken.PROPERTY_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        switch (field) {
          case "apiVersion" -> list.setApiVersion(text(p, value));
          case "kind" -> list.setKind(text(p, value));
          case "metadata" -> list.setMetadata(LIST_META.readValue(p));
          case "items" -> list.setItems(items(p, value));
          default -> p.skipChildren();
        }
      }
    }
    return list;
  }

  private List<GenericKubernetesResource> items(JsonParser p, JsonToken token) {
    if (token == JsonToken.VALUE_NULL) {
      return null;
    }
    expect(p, token, JsonToken.START_ARRAY);
    List<GenericKubernetesResource> items = new ArrayList<>();
    for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
      GenericKubernetesResource item = item(p, t);
      completeTypeOf(item);
      items.add(item);
    }
    return items;
  }

  private GenericKubernetesResource item(JsonParser p, JsonToken token) {
    if (token == JsonToken.VALUE_NULL) {
      return null;
    }
    expect(p, token, JsonToken.START_OBJECT);
    GenericKubernetesResource item = new GenericKubernetesResource();
    while (p.nextToken() == JsonToken.PROPERTY_NAME) {
      String field = p.currentName();
      JsonToken value = p.nextToken();
      switch (field) {
        case "apiVersion" -> item.setApiVersion(text(p, value));
        case "kind" -> item.setKind(text(p, value));
        case "metadata" -> item.setMetadata(metadata.readValue(p));
        // names fabric8's model ignores (a map that would take them is the object's own)
        case "additionalProperties", "additionalPropertiesNode" -> p.skipChildren();
        default -> {
          ObjectProjection.KeptKeys under = kept.under(field);
          if (under == null) {
            p.skipChildren();
          } else {
            item.setAdditionalProperty(field, keptPart(p, value, under));
          }
        }
      }
    }
    return item;
  }

  /**
   * The part of the value at {@code token} that {@code keys} keeps: all of it, or its maps with
   * only the kept keys; {@code null} for a scalar where keys were expected (the projection keeps
   * nothing of it either).
   */
  private static Object keptPart(JsonParser p, JsonToken token, ObjectProjection.KeptKeys keys) {
    if (keys.keepsAll()) {
      return UNTYPED.readValue(p);
    }
    if (token == JsonToken.START_OBJECT) {
      Map<String, Object> map = new LinkedHashMap<>();
      while (p.nextToken() == JsonToken.PROPERTY_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        ObjectProjection.KeptKeys under = keys.under(field);
        if (under == null) {
          p.skipChildren();
        } else {
          map.put(field, keptPart(p, value, under));
        }
      }
      return map;
    }
    if (token == JsonToken.START_ARRAY) {
      List<Object> list = new ArrayList<>();
      for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
        list.add(keptPart(p, t, keys));
      }
      return list;
    }
    return null;
  }

  /** As fabric8's list operation completes what an item lacks: the operation's apiVersion and kind. */
  private void completeTypeOf(GenericKubernetesResource item) {
    if (item == null) {
      return;
    }
    String current = item.getApiVersion();
    if (apiVersion != null && !apiVersion.isEmpty() && (current == null || "v1".equals(current)
        || current.indexOf('/') < 0 && apiVersion.indexOf('/') > 0)) {
      item.setApiVersion(apiVersion);
    }
    if (item.getKind() == null) {
      item.setKind(kind);
    }
  }

  private static String text(JsonParser p, JsonToken token) {
    return token == JsonToken.VALUE_STRING ? p.getString() : TEXT.readValue(p);
  }

  private static void expect(JsonParser p, JsonToken token, JsonToken expected) {
    if (token != expected) {
      throw new StreamReadException(p, "list page: expected " + expected + ", found " + token);
    }
  }

  private static ObjectReader metadataReader(Set<String> dropped) {
    return MAPPER.rebuild()
        .withConfigOverride(ObjectMeta.class, o -> o.setIgnorals(
            JsonIgnoreProperties.Value.forIgnoredProperties(dropped)))
        .build()
        .readerFor(ObjectMeta.class);
  }

  /** Reads fabric8's default mapper as its serialization configures it. */
  private static final class DefaultMapper extends KubernetesSerialization {
    private ObjectMapper mapper;

    static ObjectMapper configured() {
      return new DefaultMapper().mapper;
    }

    @Override
    protected ObjectMapper configureMapper(ObjectMapper unconfigured) {
      mapper = super.configureMapper(unconfigured);
      return mapper;
    }
  }
}
