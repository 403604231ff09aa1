package io.kollect.extract;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Base64;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/**
 * Decodes Helm 3 release storage into the release view that profiles address under {@code
 * $.release}.
 *
 * <p>Helm stores {@code base64(gzip(release JSON))} in {@code data.release}; a Secret adds the
 * Kubernetes base64 layer on top, a ConfigMap does not. The decompressed size is capped ({@link
 * #MAX_DECOMPRESSED_BYTES}) so a crafted object cannot exhaust memory. The rendered {@code manifest},
 * {@code hooks} and chart templates/files are never part of the view: they routinely contain
 * Secret manifests in clear text.
 */
final class HelmReleaseDecoder {

  static final int MAX_DECOMPRESSED_BYTES = 16 * 1024 * 1024;
  static final int MAX_ENCODED_CHARS = 24 * 1024 * 1024;
  static final String SECRET_TYPE = "helm.sh/release.v1";

  private static final ObjectMapper JSON = new ObjectMapper();

  private HelmReleaseDecoder() {}

  /** Thrown for data that is not a Helm release; the message never contains the data. */
  static final class CorruptReleaseException extends Exception {
    CorruptReleaseException(String message) {
      super(message);
    }
  }

  /** Whether the object is Helm release storage (Secret of the release type, or Helm ConfigMap). */
  static boolean isRelease(JsonNode object, boolean secret) {
    if (secret) {
      return SECRET_TYPE.equals(object.path("type").asText(null));
    }
    return "helm".equals(object.path("metadata").path("labels").path("owner").asText(null));
  }

  /** The release view decoded from the object's {@code data.release}. */
  static ObjectNode decode(JsonNode object, boolean secret) throws CorruptReleaseException {
    JsonNode release = object.path("data").path("release");
    if (!release.isTextual()) {
      throw new CorruptReleaseException("data.release is missing");
    }
    String text = release.textValue();
    if (text.length() > MAX_ENCODED_CHARS) {
      throw new CorruptReleaseException("data.release is larger than " + MAX_ENCODED_CHARS + " characters");
    }
    byte[] helmEncoded;
    try {
      helmEncoded = secret ? Base64.getMimeDecoder().decode(text) : text.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      byte[] payload = Base64.getMimeDecoder().decode(helmEncoded);
      return view(parse(payload));
    } catch (IllegalArgumentException e) {
      throw new CorruptReleaseException("data.release is not valid base64");
    }
  }

  private static JsonNode parse(byte[] payload) throws CorruptReleaseException {
    byte[] json = payload;
    if (payload.length >= 2 && (payload[0] & 0xff) == 0x1f && (payload[1] & 0xff) == 0x8b) {
      json = gunzip(payload);
    }
    try {
      JsonNode node = JSON.readTree(json);
      if (node == null || !node.isObject()) {
        throw new CorruptReleaseException("the decoded release is not a JSON object");
      }
      return node;
    } catch (JsonProcessingException e) {
      throw new CorruptReleaseException(
          "the decoded release is not valid JSON (line " + e.getLocation().getLineNr() + ", column "
              + e.getLocation().getColumnNr() + ")");
    } catch (IOException e) {
      throw new CorruptReleaseException("the decoded release cannot be read");
    }
  }

  private static byte[] gunzip(byte[] gz) throws CorruptReleaseException {
    try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(gz))) {
      ByteArrayOutputStream out = new ByteArrayOutputStream(Math.min(gz.length * 8, 1 << 20));
      byte[] buf = new byte[16 * 1024];
      int total = 0;
      int n;
      while ((n = in.read(buf)) > 0) {
        total += n;
        if (total > MAX_DECOMPRESSED_BYTES) {
          throw new CorruptReleaseException(
              "the release decompresses to more than " + MAX_DECOMPRESSED_BYTES + " bytes");
        }
        out.write(buf, 0, n);
      }
      return out.toByteArray();
    } catch (ZipException e) {
      throw new CorruptReleaseException("data.release is not valid gzip");
    } catch (IOException e) {
      throw new CorruptReleaseException("data.release is truncated or not valid gzip");
    }
  }

  /**
   * The addressable part of a release: Helm's own names plus the friendlier aliases {@code
   * revision} (= {@code version}), {@code status} (= {@code info.status}) and {@code values} (=
   * {@code config}, the user-supplied values).
   */
  private static ObjectNode view(JsonNode rel) {
    ObjectNode v = JsonNodeFactory.instance.objectNode();
    copy(rel, v, "name");
    copy(rel, v, "namespace");
    if (rel.has("version")) {
      v.set("version", rel.get("version"));
      v.set("revision", rel.get("version"));
    }
    JsonNode info = rel.path("info");
    if (info.isObject()) {
      ObjectNode i = v.putObject("info");
      for (String k : new String[] {"status", "first_deployed", "last_deployed", "deleted", "description"}) {
        copy(info, i, k);
      }
      copy(info, v, "status");
    }
    JsonNode chart = rel.path("chart");
    if (chart.isObject()) {
      ObjectNode c = v.putObject("chart");
      copy(chart, c, "metadata");
    }
    JsonNode config = rel.path("config");
    if (!config.isMissingNode()) {
      v.set("config", config);
      v.set("values", config);
    }
    return v;
  }

  private static void copy(JsonNode from, ObjectNode to, String key) {
    JsonNode n = from.get(key);
    if (n != null) {
      to.set(key, n);
    }
  }
}
