package io.kollect.extract;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;

/**
 * What a candidate profile would deliver compared with a baseline, over the same objects: the
 * summary a shadow experiment reports and {@code kollect diff} prints (safe change: experiments).
 *
 * @param objects objects evaluated (in scope of either profile)
 * @param added records the candidate would send that the baseline does not
 * @param removed records the baseline sends that the candidate would not
 * @param changed records both send with different content
 * @param fieldChanges per field name (of {@code fields}, and {@code labels.<key>} / {@code
 *     annotations.<key>}), how many changed records differ in it
 * @param errors objects the candidate fails to extract
 * @param scrubHits values the candidate's records hold scrubbed
 * @param bytesBaseline the baseline records' size as JSON lines, each {@code observedAt} counted at
 *     its full nanosecond width (so that the figure does not move with the clock)
 * @param bytesCandidate the candidate records' size, counted as {@code bytesBaseline}
 * @param samples the first changed records (by key), with the differing values before and after
 *     (scrubbed, as delivered)
 */
public record ProfileDiff(
    long objects,
    long added,
    long removed,
    long changed,
    Map<String, Long> fieldChanges,
    long errors,
    long scrubHits,
    long bytesBaseline,
    long bytesCandidate,
    List<ChangedRecord> samples) {

  /** How many changed records a diff keeps as samples by default. */
  public static final int DEFAULT_SAMPLES = 20;

  public ProfileDiff {
    fieldChanges = Map.copyOf(fieldChanges);
    samples = List.copyOf(samples);
  }

  /** Whether the candidate would deliver anything different. */
  public boolean differs() {
    return added > 0 || removed > 0 || changed > 0 || errors > 0;
  }

  /**
   * One changed (or added, or removed) record: its key and the differing values. {@code before}
   * is empty for an added record, {@code after} for a removed one.
   *
   * @param key the record's {@link Record#key()}
   * @param before the baseline's values of the differing fields, by field name
   * @param after the candidate's values of the differing fields, by field name
   */
  public record ChangedRecord(String key, Map<String, JsonNode> before,
      Map<String, JsonNode> after) {}

  /**
   * Starts a diff that keeps {@code samples} changed records at most (those with the smallest
   * keys, so the sample is the same whatever the order objects are added or diffs merged).
   *
   * <p>Counting rules: every {@link Accumulator#add} is one object; a candidate record with the
   * baseline's content hash is no change; an object the candidate fails to extract counts in
   * {@code errors}, and in {@code removed} as well when the baseline sends it (its record would
   * leave the sinks). {@code fieldChanges} names every {@code fields} entry, {@code labels.<key>}
   * and {@code annotations.<key>} that differs (absent on one side counts), and {@code resource}
   * when only the API version differs. Bytes are each side's records as JSON lines.
   *
   * @throws IllegalArgumentException when {@code samples} is negative
   */
  public static Accumulator accumulator(int samples) {
    if (samples < 0) {
      throw new IllegalArgumentException("samples: must be zero or positive, got " + samples);
    }
    return new DiffAccumulator(samples);
  }

  /**
   * A record's size as a JSON line, its {@code observedAt} counted at the full nanosecond width
   * ({@code bytesBaseline}/{@code bytesCandidate} add these).
   */
  public static long jsonSize(Record record) {
    return DiffAccumulator.jsonSize(record);
  }

  /**
   * Collects a diff object by object; not thread-safe. Shards' diffs combine with {@link
   * #merge}.
   */
  public interface Accumulator {
    /**
     * One object's outcome under both profiles.
     *
     * @param baseline its baseline record, or {@code null} when the baseline sends none
     * @param candidate its candidate record, or {@code null} when the candidate sends none
     * @param candidateFailed whether the candidate failed to extract it
     */
    void add(Record baseline, Record candidate, boolean candidateFailed);

    /**
     * As {@link #add(Record, Record, boolean)}, with the records' JSON sizes ({@link #jsonSize})
     * already known: a caller that diffs the same records again and again (a shadow evaluation)
     * keeps them instead of serialising every record every time.
     */
    void add(Record baseline, long baselineBytes, Record candidate, long candidateBytes,
        boolean candidateFailed);

    /** Adds another diff's figures (another shard, another target); samples fill by key. */
    void merge(ProfileDiff other);

    ProfileDiff result();
  }
}
