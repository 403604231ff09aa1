package io.kollect.operator.checkpoint;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.kollect.export.ExportedEntry;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a checkpoint's ConfigMaps mean ({@link ConfigMapCheckpointStore}'s class comment has the
 * format): the labels, annotations and data keys of snapshot parts and deltas, their encoding
 * (gzipped JSON), and one checkpoint's objects read back into a state ({@link #parse}). Which
 * objects are written or deleted when, and the order that keeps that crash-safe, is the store's.
 *
 * <p>What cannot be read is never an error here: it is logged and parsed as lost ({@link
 * Listing#lost}), which costs a full re-send, never a stuck exporter.
 */
final class CheckpointObjects {

  private static final Logger log = LoggerFactory.getLogger(CheckpointObjects.class);

  /** Annotation of every object: the format version it was written in. */
  static final String FORMAT = "kollect.io/checkpoint-format";
  static final int FORMAT_VERSION = 3;
  static final String PARTS = "kollect.io/parts";
  static final String DIGEST = "kollect.io/digest";
  static final String GENERATION = "kollect.io/generation";
  static final String THROUGH = "kollect.io/through";
  static final String SEQ = "kollect.io/delta-seq";
  /** Label of a delta: the generation that was newest when it was written (see compaction). */
  static final String BASE = "kollect.io/checkpoint-base";
  /**
   * Label of every object: the id of its (target, sink) without the shard suffix, so the
   * checkpoints every shard keeps of one (target, sink), its peers, are one label query.
   */
  static final String PEER_LABEL = "kollect.io/checkpoint-of";
  /** Label of a snapshot part: its generation, so a superseded generation goes in one request. */
  static final String GENERATION_LABEL = "kollect.io/checkpoint-generation";
  static final String KEY = "entries.json.gz";
  static final String DELTA_KEY = "delta.json.gz";
  private static final ObjectMapper MAPPER =
      new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  /** A delta's JSON. */
  record Delta(Map<String, ExportedEntry> upserts, List<String> removed) {}

  /** A parsed listing of one id's objects. */
  record Listing(Map<String, ExportedEntry> entries, long generation, long highest,
      long through, long maxSeq, int deltas, long deltaBytes, long snapshotBytes, boolean lost,
      List<ConfigMap> objects) {}

  /**
   * What a complete new snapshot makes redundant: snapshot generations and delta bases that go
   * whole (by label), and objects that go by name.
   */
  record Superseded(Set<String> generations, Set<String> bases, List<String> names) {}

  private CheckpointObjects() {}

  /** Parses one id's objects: the newest complete snapshot plus the deltas above it. */
  static Listing parse(String id, List<ConfigMap> objects) {
    long maxSeq = 0;
    for (ConfigMap cm : objects) {
      maxSeq = Math.max(maxSeq, parseLong(annotations(cm).get(SEQ)));
    }
    String newer = newerFormat(objects);
    if (newer != null) {
      log.warn("checkpoint {} has format {}, newer than this build reads ({}); starting without "
          + "it (a full re-send follows)", id, newer, FORMAT_VERSION);
      return new Listing(Map.of(), 0, highest(objects), 0, maxSeq, 0, 0, 0, true, objects);
    }
    try {
      // generation -> parts; version 1 and 2 objects (no generation, no sequence) are generation 0
      TreeMap<Long, List<ConfigMap>> generations = new TreeMap<>(Comparator.reverseOrder());
      List<ConfigMap> deltas = new ArrayList<>();
      for (ConfigMap cm : objects) {
        Map<String, String> a = annotations(cm);
        if (a.containsKey(SEQ)) {
          deltas.add(cm);
        } else {
          generations.computeIfAbsent(parseLong(a.getOrDefault(GENERATION, "0")),
              g -> new ArrayList<>()).add(cm);
        }
      }
      Map<String, ExportedEntry> entries = new HashMap<>();
      long generation = 0;
      long through = 0;
      long snapshotBytes = 0;
      boolean found = generations.isEmpty();
      for (Map.Entry<Long, List<ConfigMap>> g : generations.entrySet()) {
        Map<String, ExportedEntry> parsed = snapshot(g.getKey(), g.getValue());
        if (parsed != null) {
          entries.putAll(parsed);
          generation = g.getKey();
          through = parseLong(annotations(g.getValue().get(0)).getOrDefault(THROUGH, "0"));
          snapshotBytes = g.getValue().stream().mapToLong(CheckpointObjects::payloadBytes)
              .sum();
          found = true;
          break;
        }
        log.info("checkpoint {}: snapshot generation {} is incomplete (a compaction was "
            + "interrupted); using an older one", id, g.getKey());
      }
      if (!found) {
        throw new IOException("no complete snapshot");
      }
      deltas.sort(Comparator.comparingLong(cm -> parseLong(annotations(cm).get(SEQ))));
      int count = 0;
      long deltaBytes = 0;
      for (ConfigMap cm : deltas) {
        if (parseLong(annotations(cm).get(SEQ)) <= through) {
          continue;
        }
        byte[] gz = Base64.getDecoder().decode(cm.getBinaryData().get(DELTA_KEY));
        Delta d = MAPPER.readValue(gunzip(gz), Delta.class);
        if (d.removed() != null) {
          d.removed().forEach(entries::remove);
        }
        if (d.upserts() != null) {
          entries.putAll(d.upserts());
        }
        count++;
        deltaBytes += gz.length;
      }
      return new Listing(entries, generation, highest(objects), through, maxSeq, count, deltaBytes,
          snapshotBytes, false, objects);
    } catch (IOException | RuntimeException e) {
      log.warn("checkpoint {} is unreadable, starting without (a full re-send follows): {}", id,
          e.toString());
      return new Listing(Map.of(), 0, highest(objects), 0, maxSeq, 0, 0, 0, true, objects);
    }
  }

  /**
   * What a complete new snapshot ({@code written}, containing the deltas through {@code through})
   * made redundant among the objects listed before it was written: every other snapshot part
   * (older generations, version 1/2 objects, an unreadable or newer-format checkpoint it replaced)
   * and the deltas it contains. A delta newer than the snapshot is never among them, nor is a base
   * that holds one (its older deltas then go by name).
   */
  static Superseded superseded(List<ConfigMap> objects, List<ConfigMap> written, long through) {
    Set<String> keep = new HashSet<>();
    written.forEach(cm -> keep.add(cm.getMetadata().getName()));
    Set<String> bases = new TreeSet<>();
    Set<String> unsafeBases = new HashSet<>();
    Set<String> generations = new TreeSet<>();
    List<String> byName = new ArrayList<>();
    for (ConfigMap cm : objects) {
      Map<String, String> a = annotations(cm);
      Map<String, String> labels = cm.getMetadata().getLabels() == null ? Map.of()
          : cm.getMetadata().getLabels();
      String name = cm.getMetadata().getName();
      if (a.containsKey(SEQ)) {
        String base = labels.get(BASE);
        if (parseLong(a.get(SEQ)) > through) {
          if (base != null) {
            unsafeBases.add(base);
          }
        } else if (base != null) {
          bases.add(base);
        } else {
          byName.add(name);
        }
      } else if (!keep.contains(name)) {
        String g = labels.get(GENERATION_LABEL);
        if (g != null && !written.isEmpty()
            && g.equals(written.get(0).getMetadata().getLabels().get(GENERATION_LABEL))) {
          byName.add(name); // a leftover part of the generation just written (more parts before)
        } else if (g != null) {
          generations.add(g);
        } else {
          byName.add(name);
        }
      }
    }
    for (String base : unsafeBases) {
      // a base with a delta newer than the snapshot cannot go whole; its older deltas go by name
      if (bases.remove(base)) {
        for (ConfigMap cm : objects) {
          Map<String, String> labels = cm.getMetadata().getLabels();
          if (labels != null && base.equals(labels.get(BASE))
              && parseLong(annotations(cm).get(SEQ)) <= through) {
            byName.add(cm.getMetadata().getName());
          }
        }
      }
    }
    return new Superseded(generations, bases, byName);
  }

  /** The format of the first object written in one this build cannot read; null: none. */
  private static String newerFormat(List<ConfigMap> objects) {
    for (ConfigMap cm : objects) {
      String format = annotations(cm).getOrDefault(FORMAT, "1");
      if (!format.matches("[0-9]{1,4}") || Integer.parseInt(format) > FORMAT_VERSION) {
        return format;
      }
    }
    return null;
  }

  private static long highest(List<ConfigMap> objects) {
    long highest = 0;
    for (ConfigMap cm : objects) {
      String g = annotations(cm).get(GENERATION);
      if (g != null && g.matches("[0-9]{1,18}")) {
        highest = Math.max(highest, Long.parseLong(g));
      }
    }
    return highest;
  }

  /** The entries of one generation's parts, or null when parts are missing or from two writes. */
  private static Map<String, ExportedEntry> snapshot(long generation, List<ConfigMap> parts)
      throws IOException {
    Map<String, String> first = annotations(parts.get(0));
    int expected = Integer.parseInt(first.getOrDefault(PARTS, "-1"));
    String digest = first.get(DIGEST);
    if (parts.size() != expected || digest == null) {
      return null;
    }
    parts.sort(Comparator.comparingInt(CheckpointObjects::partIndex));
    ByteArrayOutputStream gz = new ByteArrayOutputStream();
    for (int i = 0; i < parts.size(); i++) {
      ConfigMap cm = parts.get(i);
      if (partIndex(cm) != i || !digest.equals(annotations(cm).get(DIGEST))) {
        return null;
      }
      gz.write(Base64.getDecoder().decode(cm.getBinaryData().get(KEY)));
    }
    return MAPPER.readValue(gunzip(gz.toByteArray()),
        new TypeReference<TreeMap<String, ExportedEntry>>() {});
  }

  /** The part number: the name's last {@code -<n>} (v2: {@code <id>-<n>}; v3: {@code <id>-s<g>-<n>}). */
  private static int partIndex(ConfigMap cm) {
    String name = cm.getMetadata().getName();
    return Integer.parseInt(name.substring(name.lastIndexOf('-') + 1));
  }

  static long payloadBytes(ConfigMap cm) {
    Map<String, String> data = cm.getBinaryData();
    String b64 = data == null ? null : data.getOrDefault(KEY, data.get(DELTA_KEY));
    return b64 == null ? 0 : b64.length() * 3L / 4;
  }

  private static Map<String, String> annotations(ConfigMap cm) {
    Map<String, String> a = cm.getMetadata().getAnnotations();
    return a == null ? Map.of() : a;
  }

  private static long parseLong(String s) {
    return s == null ? 0 : Long.parseLong(s);
  }

  static byte[] json(Object value) {
    try {
      return MAPPER.writeValueAsBytes(value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static byte[] gzip(byte[] bytes) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream zip = new GZIPOutputStream(out)) {
      zip.write(bytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  private static byte[] gunzip(byte[] gz) throws IOException {
    try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(gz))) {
      return in.readAllBytes();
    }
  }

  /** What every part of a snapshot carries: the first 16 bytes of its JSON's SHA-256, in hex. */
  static String digest(byte[] bytes) {
    return sha256Hex(bytes, 16);
  }

  /** The first {@code prefixBytes} bytes of {@code bytes}' SHA-256, in hex. */
  static String sha256Hex(byte[] bytes, int prefixBytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes), 0,
          prefixBytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
