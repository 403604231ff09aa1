package io.kollect.export;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.core.data.BytesCloudEventData;
import io.cloudevents.http.HttpMessageFactory;
import io.cloudevents.jackson.JsonFormat;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.ZoneOffset;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Records as CloudEvents 1.0 (through the CloudEvents Java SDK), as documented in {@code
 * docs/sinks.md}:
 *
 * <ul>
 *   <li>{@code type}: {@code io.kollect.record.upsert} or {@code io.kollect.record.delete};
 *   <li>{@code source}: {@code kollect://<cluster>/<target>}, both percent-encoded except the
 *       RFC 3986 unreserved characters (and {@code /} in the target);
 *   <li>{@code subject}: the record key, {@code group/kind/namespace/name};
 *   <li>{@code id}: the first 32 hex digits of SHA-256 over cluster, target, key and sequence
 *       (UTF-8, joined by newlines; the sequence in decimal, empty when absent), so a retry or a
 *       heartbeat of one state keeps its id and a new state gets a new one;
 *   <li>{@code time}: {@code observedAt}; {@code datacontenttype}: {@code application/json};
 *       {@code data}: the record's JSON, byte for byte as the default format carries it.
 * </ul>
 */
final class CloudEventRecords {

  static final String UPSERT_TYPE = "io.kollect.record.upsert";
  static final String DELETE_TYPE = "io.kollect.record.delete";
  static final String BATCH_CONTENT_TYPE = "application/cloudevents-batch+json";
  static final String DATA_CONTENT_TYPE = "application/json";
  private static final int ID_HEX_DIGITS = 32;

  private static final ObjectWriter RECORD = RecordJson.MAPPER.writerFor(Record.class);
  private static final ObjectMapper EVENTS =
      new ObjectMapper().registerModule(JsonFormat.getCloudEventJacksonModule());

  private CloudEventRecords() {}

  /** One record as an event. */
  static CloudEvent event(Record record) throws JsonProcessingException {
    CloudEventBuilder b = CloudEventBuilder.v1()
        .withId(id(record))
        .withType(record.op() == Op.DELETE ? DELETE_TYPE : UPSERT_TYPE)
        .withSource(source(record))
        .withSubject(record.key())
        .withDataContentType(DATA_CONTENT_TYPE)
        .withData(BytesCloudEventData.wrap(RECORD.writeValueAsBytes(record)));
    if (record.observedAt() != null) {
      b.withTime(record.observedAt().atOffset(ZoneOffset.UTC));
    }
    return b.build();
  }

  /** The batched content mode body: one JSON array of structured events. */
  static byte[] batch(List<CloudEvent> events) throws JsonProcessingException {
    return EVENTS.writeValueAsBytes(events);
  }

  /**
   * An event in the binary content mode: its {@code ce-*} and {@code content-type} headers (names
   * in lower case), its data.
   */
  record Binary(Map<String, String> headers, byte[] body) {}

  static Binary binary(CloudEvent event) {
    Map<String, String> headers = new LinkedHashMap<>();
    AtomicReference<byte[]> body = new AtomicReference<>(new byte[0]);
    // names in lower case: the SDK writes "Content-Type" but "ce-id"
    HttpMessageFactory.createWriter(
        (name, value) -> headers.put(name.toLowerCase(Locale.ROOT), value),
        bytes -> {
          if (bytes != null) {
            body.set(bytes);
          }
        }).writeBinary(event);
    return new Binary(Map.copyOf(headers), body.get());
  }

  /** The stable event id of a record's state. */
  static String id(Record record) {
    return hash(record.cluster() + "\n" + record.target() + "\n" + record.key() + "\n"
        + (record.sequence() == null ? "" : record.sequence().toString()));
  }

  /** The event source: {@code kollect://<cluster>/<target>}. */
  static URI source(Record record) {
    return URI.create("kollect://" + encode(record.cluster(), false) + "/"
        + encode(record.target(), true));
  }

  /** The first 32 hex digits of the SHA-256 of {@code text} (UTF-8). */
  static String hash(String text) {
    return hash(text.getBytes(StandardCharsets.UTF_8));
  }

  /** The first 32 hex digits of the SHA-256 of {@code bytes}. */
  static String hash(byte[] bytes) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(bytes);
      return HexFormat.of().formatHex(digest).substring(0, ID_HEX_DIGITS);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 unavailable", e); // every JDK has it
    }
  }

  private static String encode(String value, boolean keepSlash) {
    if (value == null) {
      return "";
    }
    StringBuilder out = new StringBuilder(value.length());
    for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || c == '-' || c == '.' || c == '_' || c == '~' || (keepSlash && c == '/')) {
        out.append((char) c);
      } else {
        out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
            .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
      }
    }
    return out.toString();
  }
}
