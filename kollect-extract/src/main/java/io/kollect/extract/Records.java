package io.kollect.extract;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * JSON (de)serialisation of {@link Record}s in the stable record format, and the content hash.
 *
 * <p>{@link #mapper()} is the one {@link ObjectMapper} every module should use for records:
 * {@code observedAt} is written as an ISO-8601 instant ({@code 2024-05-01T10:00:00Z}), keys in the
 * documented order, {@code null}s kept (a cluster-scoped object has {@code "namespace":null}).
 */
public final class Records {

  private static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .addModule(new JavaTimeModule())
          .addModule(new SimpleModule("kollect-records").addSerializer(Record.class,
              new RecordWriter()))
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE)
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .build();

  /**
   * One SHA-256 per thread: {@link MessageDigest#getInstance} looks the algorithm up among the
   * providers on every call, and every extracted record is hashed once.
   */
  private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK always provides SHA-256", e);
    }
  });

  private Records() {}

  /** The shared mapper for records (thread-safe; do not reconfigure it). */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  /** One record as one line of JSON (no trailing newline). */
  public static String toJsonLine(Record record) {
    try {
      return MAPPER.writeValueAsString(record);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("record cannot be serialised: " + e.getOriginalMessage(), e);
    }
  }

  /**
   * {@link #toJsonLine} as UTF-8 bytes, written as bytes rather than encoded from the text (one
   * pass, no string). It reads back as the same record; the bytes differ from the text's in two
   * places, as the HTTP sink's bodies always have: a character beyond the Basic Multilingual Plane
   * is written as its JSON escape pair ({@code \uD83D\uDE80}), and so is a lone UTF-16 surrogate
   * ({@code \uD800}), which no UTF-8 byte sequence represents and which encoding the text would
   * have replaced with {@code ?} (docs/record-format.md).
   */
  public static byte[] toJsonBytes(Record record) {
    try {
      return MAPPER.writeValueAsBytes(record);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("record cannot be serialised: " + e.getOriginalMessage(), e);
    }
  }

  /**
   * Writes a resource type as records carry it, {@code {"group":..,"version":..,"kind":..}}
   * ({@code null} as JSON null), for writers that stream a record or what is kept of one.
   */
  public static void writeResource(JsonGenerator gen, GroupVersionKind resource)
      throws IOException {
    if (resource == null) {
      gen.writeNull();
      return;
    }
    gen.writeStartObject();
    gen.writeStringField("group", resource.group());
    gen.writeStringField("version", resource.version());
    gen.writeStringField("kind", resource.kind());
    gen.writeEndObject();
  }

  /**
   * Writes a content hash as records and checkpoint entries carry it, its text or {@code null},
   * without making the text ({@link ContentHash#writeTo}).
   */
  public static void writeContentHash(JsonGenerator gen, ContentHash hash) throws IOException {
    if (hash == null) {
      gen.writeNull();
    } else {
      hash.writeTo(gen);
    }
  }

  /** A record as a JSON tree, keys in the documented order. */
  public static ObjectNode toTree(Record record) {
    return MAPPER.valueToTree(record);
  }

  /**
   * Parses one record from JSON (unknown keys are ignored so that newer writers stay readable).
   *
   * @throws IllegalArgumentException when the text is not a record
   */
  public static Record fromJson(String json) {
    try {
      return MAPPER.readValue(json, Record.class);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "not a Kollect record: " + e.getOriginalMessage().lines().findFirst().orElse(""), e);
    }
  }

  /**
   * The content hash of a record's content: SHA-256 (lower-case hex) over canonical JSON (object
   * keys sorted, no whitespace) of {@code resource, namespace, name, fields, labels,
   * annotations}. Cluster, target, uid, resourceVersion and observedAt are deliberately not part
   * of it, so an update that changes no extracted value keeps its hash.
   */
  public static String contentHash(
      GroupVersionKind resource,
      String namespace,
      String name,
      Map<String, JsonNode> fields,
      Map<String, String> labels,
      Map<String, String> annotations) {
    return hashOf(resource, namespace, name, fields, labels, annotations).toString();
  }

  /** {@link #contentHash} in the form records hold it, without building its text. */
  static ContentHash hashOf(
      GroupVersionKind resource,
      String namespace,
      String name,
      Map<String, JsonNode> fields,
      Map<String, String> labels,
      Map<String, String> annotations) {
    // The canonical JSON of {resource, namespace, name, fields, labels, annotations}, written
    // straight from the values in sorted key order: the same bytes as building the tree and
    // sorting it (ContentHashTest), without the tree and the resource's round trip through one.
    // The bytes go from the generator's buffer into the digest, never into an array of their own.
    MessageDigest digest = SHA256.get();
    digest.reset();
    OutputStream out = new DigestOutputStream(OutputStream.nullOutputStream(), digest);
    try (JsonGenerator gen = MAPPER.getFactory().createGenerator(out)) {
      gen.writeStartObject();
      gen.writeFieldName("annotations");
      writeSortedTexts(gen, annotations);
      gen.writeFieldName("fields");
      gen.writeStartObject();
      for (String key : sortedKeys(fields)) {
        gen.writeFieldName(key);
        writeCanonical(gen, fields.get(key));
      }
      gen.writeEndObject();
      gen.writeFieldName("labels");
      writeSortedTexts(gen, labels);
      gen.writeStringField("name", name);
      gen.writeStringField("namespace", namespace);
      gen.writeObjectFieldStart("resource");
      gen.writeStringField("group", resource.group());
      gen.writeStringField("kind", resource.kind());
      gen.writeStringField("version", resource.version());
      gen.writeEndObject();
      gen.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ContentHash.ofSha256(digest.digest());
  }

  private static List<String> sortedKeys(Map<String, ?> map) {
    List<String> keys = new ArrayList<>(map.keySet());
    keys.sort(null);
    return keys;
  }

  private static void writeSortedTexts(JsonGenerator gen, Map<String, String> map)
      throws IOException {
    gen.writeStartObject();
    for (String key : sortedKeys(map)) {
      gen.writeStringField(key, map.get(key));
    }
    gen.writeEndObject();
  }

  /** Writes {@code node} as canonical JSON: keys sorted at every level, compact. */
  static void writeCanonical(JsonGenerator gen, JsonNode node) throws IOException {
    if (node == null) {
      gen.writeNull(); // as a tree holds a Java null: a NullNode
    } else if (node.isTextual()) {
      gen.writeString(node.textValue());
    } else if (node.isObject()) {
      List<String> names = new ArrayList<>();
      node.fieldNames().forEachRemaining(names::add);
      names.sort(null);
      gen.writeStartObject();
      for (String n : names) {
        gen.writeFieldName(n);
        writeCanonical(gen, node.get(n));
      }
      gen.writeEndObject();
    } else if (node.isArray()) {
      gen.writeStartArray();
      for (JsonNode e : node) {
        writeCanonical(gen, e);
      }
      gen.writeEndArray();
    } else {
      MAPPER.writeTree(gen, node);
    }
  }
}
