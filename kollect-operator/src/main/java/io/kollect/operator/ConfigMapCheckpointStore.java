package io.kollect.operator;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.kollect.export.CheckpointStore;
import io.kollect.export.ExportedEntry;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps export checkpoints in ConfigMaps in the operator's namespace, so that a new leader (on
 * another node, with no disk of its own) continues where the old one stopped instead of re-sending
 * everything.
 *
 * <p>One (target, sink) is stored as gzipped JSON in {@code binaryData} of ConfigMaps named {@code
 * kollect-checkpoint-<hash>-<part>}; state larger than 700 KiB compressed is
 * split over several parts. A torn or unreadable checkpoint reads as empty: the cost is a full
 * re-send, never a stuck exporter.
 *
 * <p>Format: annotation {@value #FORMAT} says the version of the entries' JSON. Version 2 adds each
 * entry's delivery {@code sequence} and {@code lastSentAt}; a checkpoint without the annotation is
 * version 1 (written before sequences existed) and is read as it is, and one of a newer version
 * than this build knows is not misread but treated as empty.
 */
final class ConfigMapCheckpointStore implements CheckpointStore {

  private static final Logger log = LoggerFactory.getLogger(ConfigMapCheckpointStore.class);
  static final int PART_BYTES = 700 * 1024;
  static final String LABEL = "kollect.io/checkpoint";
  private static final String PARTS = "kollect.io/parts";
  private static final String KEY = "entries.json.gz";
  static final String FORMAT = "kollect.io/checkpoint-format";
  static final int FORMAT_VERSION = 2;
  private static final ObjectMapper MAPPER =
      new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  private final KubernetesClient client;
  private final String namespace;
  /** What was last written per id, to skip writes of unchanged state. */
  private final Map<String, String> lastWritten = new ConcurrentHashMap<>();

  private final int partBytes;

  ConfigMapCheckpointStore(KubernetesClient client, String namespace) {
    this(client, namespace, PART_BYTES);
  }

  ConfigMapCheckpointStore(KubernetesClient client, String namespace, int partBytes) {
    this.client = client;
    this.namespace = namespace;
    this.partBytes = partBytes;
  }

  /** A stable, name-safe id of a (target, sink); the readable names go in annotations. */
  static String id(String target, String sink) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256")
          .digest((target + "\n" + sink).getBytes(StandardCharsets.UTF_8));
      return "kollect-checkpoint-" + HexFormat.of().formatHex(digest, 0, 10);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private List<ConfigMap> parts(String id) {
    return client.configMaps().inNamespace(namespace).withLabel(LABEL, id).list().getItems()
        .stream()
        .sorted(Comparator.comparing(cm -> cm.getMetadata().getName()))
        .toList();
  }

  @Override
  public Map<String, ExportedEntry> load(String target, String sink) {
    String id = id(target, sink);
    List<ConfigMap> parts;
    try {
      parts = parts(id);
    } catch (KubernetesClientException e) {
      log.warn("checkpoint {} ({} / {}) cannot be read, starting without: {}", id, target, sink,
          e.getMessage());
      return Map.of();
    }
    if (parts.isEmpty()) {
      return Map.of();
    }
    try {
      ByteArrayOutputStream gz = new ByteArrayOutputStream();
      int expected = Integer.parseInt(parts.get(0).getMetadata().getAnnotations().get(PARTS));
      String generation = parts.get(0).getMetadata().getAnnotations().get("kollect.io/digest");
      String format = parts.get(0).getMetadata().getAnnotations().getOrDefault(FORMAT, "1");
      if (!format.matches("[0-9]{1,4}") || Integer.parseInt(format) > FORMAT_VERSION) {
        throw new IOException("has format " + format + ", newer than this build reads ("
            + FORMAT_VERSION + ")");
      }
      if (parts.size() != expected) {
        throw new IOException("has " + parts.size() + " of " + expected + " parts");
      }
      for (int i = 0; i < parts.size(); i++) {
        ConfigMap cm = parts.get(i);
        if (!cm.getMetadata().getName().equals(id + "-" + i)
            || !generation.equals(cm.getMetadata().getAnnotations().get("kollect.io/digest"))) {
          throw new IOException("parts are from different writes");
        }
        gz.write(Base64.getDecoder().decode(cm.getBinaryData().get(KEY)));
      }
      try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(gz.toByteArray()))) {
        Map<String, ExportedEntry> entries =
            MAPPER.readValue(in, new TypeReference<TreeMap<String, ExportedEntry>>() {});
        return entries;
      }
    } catch (IOException | RuntimeException e) {
      log.warn("checkpoint {} ({} / {}) is unreadable, starting without (a full re-send follows): {}",
          id, target, sink, e.toString());
      return Map.of();
    }
  }

  @Override
  public void save(String target, String sink, Map<String, ExportedEntry> entries) {
    String id = id(target, sink);
    byte[] json;
    byte[] gz;
    try {
      json = MAPPER.writeValueAsBytes(new TreeMap<>(entries));
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try (GZIPOutputStream zip = new GZIPOutputStream(out)) {
        zip.write(json);
      }
      gz = out.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String digest = digest(json);
    if (digest.equals(lastWritten.get(id))) {
      return;
    }
    int count = Math.max(1, (gz.length + partBytes - 1) / partBytes);
    for (int i = 0; i < count; i++) {
      byte[] chunk = Arrays.copyOfRange(gz, i * partBytes, Math.min(gz.length, (i + 1) * partBytes));
      ConfigMap cm = new ConfigMapBuilder()
          .withNewMetadata()
          .withName(id + "-" + i)
          .withNamespace(namespace)
          .addToLabels(LABEL, id)
          .addToLabels("app.kubernetes.io/managed-by", "kollect")
          .addToAnnotations("kollect.io/target", target)
          .addToAnnotations("kollect.io/sink", sink)
          .addToAnnotations(PARTS, Integer.toString(count))
          .addToAnnotations("kollect.io/digest", digest)
          .addToAnnotations(FORMAT, Integer.toString(FORMAT_VERSION))
          .endMetadata()
          .addToBinaryData(KEY, Base64.getEncoder().encodeToString(chunk))
          .build();
      client.configMaps().inNamespace(namespace).resource(cm)
          .createOr(NonDeletingOperation::update);
    }
    for (ConfigMap stale : parts(id)) {
      String name = stale.getMetadata().getName();
      int index = Integer.parseInt(name.substring(name.lastIndexOf('-') + 1));
      if (index >= count) {
        client.configMaps().inNamespace(namespace).resource(stale).delete();
      }
    }
    lastWritten.put(id, digest);
  }

  /**
   * Forgets which state this instance wrote last. Called when leadership changes hands: another
   * instance may have written since, so the next save must not be skipped as unchanged.
   */
  void forgetWritten() {
    lastWritten.clear();
  }

  @Override
  public void delete(String target, String sink) {
    String id = id(target, sink);
    client.configMaps().inNamespace(namespace).withLabel(LABEL, id).delete();
    lastWritten.remove(id);
  }

  private static String digest(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes), 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
