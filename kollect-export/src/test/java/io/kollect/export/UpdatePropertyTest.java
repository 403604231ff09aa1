package io.kollect.export;

import static io.kollect.export.TestRecords.key;
import static io.kollect.export.TestRecords.record;
import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.extract.Op;
import io.kollect.extract.Record;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * {@link Exporter#update} against {@link Exporter#converge}: deltas and full passes may be mixed in
 * any order and the sinks end where a full pass of the final set would leave them; a delta never
 * invents a tombstone.
 */
class UpdatePropertyTest {

  static final List<String> NAMES = List.of("a", "b", "c", "d", "e", "f");
  static final SinkOptions OPTIONS = SinkOptions.defaults().withLinger(Duration.ZERO)
      .withMaxBatchSize(3).withHeartbeatInterval(Duration.ZERO)
      .withBackoff(Duration.ofMillis(1), Duration.ofMillis(4));

  /** One call: a converge of a whole set, or an update of some keys. */
  record Step(boolean converge, Map<String, Integer> upserts, Set<String> deletes) {}

  @Provide
  Arbitrary<List<Step>> steps() {
    Arbitrary<Map<String, Integer>> versions = Arbitraries.maps(Arbitraries.of(NAMES),
        Arbitraries.integers().between(0, 3)).ofMaxSize(6);
    Arbitrary<Set<String>> names = Arbitraries.of(NAMES).set().ofMaxSize(3);
    Arbitrary<Step> step = Combinators.combine(Arbitraries.integers().between(0, 3), versions,
        names).as((kind, v, d) -> kind == 0 ? new Step(true, v, Set.of()) : new Step(false, v, d));
    return step.list().ofMinSize(1).ofMaxSize(15);
  }

  @Provide
  Arbitrary<Map<String, Integer>> checkpoints() {
    return Arbitraries.maps(Arbitraries.of(NAMES), Arbitraries.integers().between(0, 3))
        .ofMaxSize(6);
  }

  /** A map-backed store (the default {@code apply} merges into it). */
  static final class MapStore implements CheckpointStore {
    final Map<String, Map<String, ExportedEntry>> saved = new ConcurrentHashMap<>();

    @Override
    public Map<String, ExportedEntry> load(String target, String sink) {
      return saved.getOrDefault(target + "|" + sink, Map.of());
    }

    @Override
    public void save(String target, String sink, Map<String, ExportedEntry> entries) {
      saved.put(target + "|" + sink, Map.copyOf(entries));
    }

    @Override
    public void delete(String target, String sink) {
      saved.remove(target + "|" + sink);
    }
  }

  static Record rec(String name, int version) {
    return record("t", name, version);
  }

  static Map<String, String> held(RecordingSink sink) {
    Map<String, String> out = new TreeMap<>();
    for (Record r : sink.received) {
      if (r.op() == Op.DELETE) {
        out.remove(r.key());
      } else {
        out.put(r.key(), r.contentHash());
      }
    }
    return out;
  }

  static Map<String, String> hashes(Map<String, Integer> desired) {
    Map<String, String> out = new TreeMap<>();
    desired.forEach((n, v) -> out.put(key(n), rec(n, v).contentHash()));
    return out;
  }

  /**
   * Starting from a converge (as a host does on start), any mix of updates and converges leaves
   * every sink holding exactly the final desired set, and a DELETE only ever reaches a sink for a
   * key that a call took out of the set.
   */
  @Property(tries = 80)
  void anyMixOfUpdatesAndConvergesEndsAtTheFinalSetWithoutInventedTombstones(
      @ForAll("checkpoints") Map<String, Integer> initial,
      @ForAll("steps") List<Step> steps) {
    RecordingSink s1 = new RecordingSink("s1");
    RecordingSink s2 = new RecordingSink("s2");
    Set<String> sinks = Set.of("s1", "s2");
    Map<String, Integer> desired = new HashMap<>(initial);
    Set<String> leftTheSet = new HashSet<>();
    try (Exporter ex = Exporter.builder().build()) {
      ex.addSink(s1, OPTIONS);
      ex.addSink(s2, OPTIONS);
      ex.converge("t", sinks, desired.entrySet().stream().map(e -> rec(e.getKey(), e.getValue()))
          .toList());
      for (Step step : steps) {
        if (step.converge()) {
          for (String n : desired.keySet()) {
            if (!step.upserts().containsKey(n)) {
              leftTheSet.add(key(n));
            }
          }
          desired = new HashMap<>(step.upserts());
          ex.converge("t", sinks, step.upserts().entrySet().stream()
              .map(e -> rec(e.getKey(), e.getValue())).toList());
        } else {
          desired.putAll(step.upserts());
          for (String n : step.deletes()) {
            if (desired.remove(n) != null) {
              leftTheSet.add(key(n));
            }
          }
          ex.update("t", sinks, step.upserts().entrySet().stream()
              .map(e -> rec(e.getKey(), e.getValue())).toList(),
              step.deletes().stream().map(TestRecords::key).toList());
        }
      }
      assertThat(ex.awaitIdle(Duration.ofSeconds(20))).isTrue();
      for (RecordingSink sink : List.of(s1, s2)) {
        assertThat(held(sink)).as(sink.name()).isEqualTo(hashes(desired));
        for (Record r : sink.received) {
          if (r.op() == Op.DELETE) {
            assertThat(leftTheSet).as("tombstone of " + r.key()).contains(r.key());
          }
        }
      }
    }
  }

  /**
   * Updates alone (the initial list still arriving) never tombstone a key they do not name, even
   * one the checkpoint knows, and never re-send a key whose checkpointed state is unchanged.
   */
  @Property(tries = 60)
  void updatesBeforeTheFirstConvergeTouchOnlyTheKeysTheyName(
      @ForAll("checkpoints") Map<String, Integer> checkpointed,
      @ForAll("steps") List<Step> steps) {
    MapStore store = new MapStore();
    Map<String, ExportedEntry> cp = new HashMap<>();
    checkpointed.forEach((n, v) -> cp.put(key(n), ExportedEntry.of(rec(n, v))));
    store.save("t", "s1", cp);
    RecordingSink s1 = new RecordingSink("s1");
    Set<String> deleted = new HashSet<>();
    Set<String> upserted = new HashSet<>();
    try (Exporter ex = Exporter.builder().checkpointStore(store).build()) {
      ex.addSink(s1, OPTIONS);
      for (Step step : steps) {
        List<Record> ups = new ArrayList<>();
        step.upserts().forEach((n, v) -> {
          ups.add(rec(n, v));
          upserted.add(key(n));
        });
        step.deletes().forEach(n -> deleted.add(key(n)));
        ex.update("t", Set.of("s1"), ups, step.deletes().stream().map(TestRecords::key).toList());
      }
      assertThat(ex.awaitIdle(Duration.ofSeconds(20))).isTrue();
      for (Record r : s1.received) {
        if (r.op() == Op.DELETE) {
          assertThat(deleted).as("tombstone of " + r.key()).contains(r.key());
        } else {
          assertThat(upserted).as("upsert of " + r.key()).contains(r.key());
        }
      }
    }
  }
}
