package io.kollect.extract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The one {@link ProfileDiff.Accumulator}: counters, a field-name histogram and the {@code limit}
 * changed records with the smallest keys (a bounded sorted map, so memory stays O(limit + field
 * names) whatever the number of objects, and the sample does not depend on the order of adds or
 * merges).
 */
final class DiffAccumulator implements ProfileDiff.Accumulator {

  /**
   * The width of an {@code observedAt} with a nanosecond fraction:
   * {@code 2024-05-01T10:00:00.123456789Z}.
   */
  static final int OBSERVED_AT_WIDTH = 30;

  private final int limit;
  private long objects;
  private long added;
  private long removed;
  private long changed;
  private final Map<String, Long> fieldChanges = new TreeMap<>();
  private long errors;
  private long scrubHits;
  private long bytesBaseline;
  private long bytesCandidate;
  private final TreeMap<String, ProfileDiff.ChangedRecord> samples = new TreeMap<>();

  DiffAccumulator(int limit) {
    this.limit = limit;
  }

  @Override
  public void add(Record baseline, Record candidate, boolean candidateFailed) {
    add(baseline, baseline == null ? 0 : jsonSize(baseline), candidate,
        candidate == null ? 0 : jsonSize(candidate), candidateFailed);
  }

  @Override
  public void add(Record baseline, long baselineBytes, Record candidate, long candidateBytes,
      boolean candidateFailed) {
    objects++;
    if (baseline != null) {
      bytesBaseline += baselineBytes;
    }
    if (candidate != null) {
      bytesCandidate += candidateBytes;
      scrubHits += scrubbed(candidate);
    }
    if (candidateFailed) {
      errors++;
    }
    if (baseline == null && candidate == null) {
      return;
    }
    if (baseline == null) {
      added++;
      sample(candidate.key(), Map.of(), values(candidate));
    } else if (candidate == null) {
      removed++;
      sample(baseline.key(), values(baseline), Map.of());
    } else if (!Objects.equals(baseline.hash(), candidate.hash())) {
      changed++;
      Map<String, JsonNode> before = values(baseline);
      Map<String, JsonNode> after = values(candidate);
      Map<String, JsonNode> beforeDiff = new LinkedHashMap<>();
      Map<String, JsonNode> afterDiff = new LinkedHashMap<>();
      for (Map.Entry<String, JsonNode> e : before.entrySet()) {
        JsonNode other = after.get(e.getKey());
        if (!e.getValue().equals(other)) {
          beforeDiff.put(e.getKey(), e.getValue());
          if (other != null) {
            afterDiff.put(e.getKey(), other);
          }
        }
      }
      for (Map.Entry<String, JsonNode> e : after.entrySet()) {
        if (!before.containsKey(e.getKey())) {
          afterDiff.put(e.getKey(), e.getValue());
        }
      }
      TreeMap<String, Boolean> names = new TreeMap<>();
      beforeDiff.keySet().forEach(k -> names.put(k, true));
      afterDiff.keySet().forEach(k -> names.put(k, true));
      if (!Objects.equals(baseline.resource(), candidate.resource())) {
        names.put("resource", true);
        beforeDiff.put("resource", TextNode.valueOf(baseline.resource().toString()));
        afterDiff.put("resource", TextNode.valueOf(candidate.resource().toString()));
      }
      names.keySet().forEach(n -> fieldChanges.merge(n, 1L, Long::sum));
      sample(baseline.key(), beforeDiff, afterDiff);
    }
  }

  @Override
  public void merge(ProfileDiff other) {
    objects += other.objects();
    added += other.added();
    removed += other.removed();
    changed += other.changed();
    other.fieldChanges().forEach((k, v) -> fieldChanges.merge(k, v, Long::sum));
    errors += other.errors();
    scrubHits += other.scrubHits();
    bytesBaseline += other.bytesBaseline();
    bytesCandidate += other.bytesCandidate();
    for (ProfileDiff.ChangedRecord c : other.samples()) {
      sample(c.key(), c.before(), c.after());
    }
  }

  @Override
  public ProfileDiff result() {
    return new ProfileDiff(objects, added, removed, changed, fieldChanges, errors, scrubHits,
        bytesBaseline, bytesCandidate, List.copyOf(samples.values()));
  }

  /** Keeps the record when its key is among the {@code limit} smallest seen. */
  private void sample(String key, Map<String, JsonNode> before, Map<String, JsonNode> after) {
    if (limit == 0 || (samples.size() >= limit && key.compareTo(samples.lastKey()) >= 0)) {
      return;
    }
    samples.put(key, new ProfileDiff.ChangedRecord(key, Map.copyOf(before), Map.copyOf(after)));
    if (samples.size() > limit) {
      samples.pollLastEntry();
    }
  }

  /** A record's compared values by field name: fields, then labels and annotations prefixed. */
  private static Map<String, JsonNode> values(Record r) {
    Map<String, JsonNode> out = new LinkedHashMap<>();
    r.fields().forEach((k, v) -> out.put(k, v == null
        ? NullNode.getInstance() : v));
    r.labels().forEach((k, v) -> out.put("labels." + k, TextNode.valueOf(v)));
    r.annotations().forEach((k, v) -> out.put("annotations." + k, TextNode.valueOf(v)));
    return out;
  }

  /** Values the record holds masked by the {@link Scrubber}. */
  static long scrubbed(Record r) {
    long n = 0;
    for (JsonNode v : r.fields().values()) {
      n += scrubbed(v);
    }
    for (String v : r.annotations().values()) {
      if (Scrubber.MASK.equals(v)) {
        n++;
      }
    }
    return n;
  }

  private static long scrubbed(JsonNode node) {
    if (node == null) {
      return 0;
    }
    if (node.isTextual()) {
      return Scrubber.MASK.equals(node.textValue()) ? 1 : 0;
    }
    long n = 0;
    for (Iterator<JsonNode> it = node.elements(); it.hasNext(); ) {
      n += scrubbed(it.next());
    }
    return n;
  }

  /**
   * The record's size as a JSON line, counted without building the string, with {@code observedAt}
   * counted at its full width (nanoseconds). Its text drops the trailing zero groups of the
   * fraction (9, 6, 3 or no digits), so the same records observed at another instant would count up
   * to 10 bytes more or fewer each, and a diff's byte figures would move with the clock: a shadow
   * diff and {@code kollect diff} over the same objects differed by 9 bytes once.
   */
  static long jsonSize(Record r) {
    long[] size = new long[1];
    OutputStream counter = new OutputStream() {
      @Override
      public void write(int b) {
        size[0]++;
      }

      @Override
      public void write(byte[] b, int off, int len) {
        size[0] += len;
      }
    };
    try {
      Records.mapper().writeValue(counter, r);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return size[0] + observedAtPadding(r.observedAt());
  }

  private static int observedAtPadding(Instant at) {
    return at == null ? 0 : Math.max(0, OBSERVED_AT_WIDTH - at.toString().length());
  }
}
