package io.kollect.export;

import static io.kollect.export.TestRecords.T0;
import static io.kollect.export.TestRecords.enqueued;
import static io.kollect.export.TestRecords.exportKey;
import static io.kollect.export.TestRecords.record;
import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.extract.Op;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Whatever a (target, sink) state goes through (changes and DELETEs handed over, heartbeats,
 * acknowledgements in order, late, out of order or twice, refusals, a replaced sink, entries
 * taken over from another shard), its enqueued view and its acknowledged map say exactly what two
 * full maps said before the view became an overlay on the acknowledged map; and with the delivery
 * channel's guarantees (per-key order, an unsent state replaced by a newer one) the overlay is
 * empty once everything handed over is acknowledged.
 */
class EnqueuedViewPropertyTest {

  static final List<ExportKey> KEYS = List.of(exportKey("a"), exportKey("b"), exportKey("c"));

  enum Kind {
    ENQUEUE, DELETE, HEARTBEAT, ACK_OLDEST, SUPERSEDE, ACK_ANY, ACK_AGAIN, REFUSE, RESET, ADOPT
  }

  /** Kinds the delivery channel produces on its own: per-key order, newer replaces unsent. */
  static final List<Kind> ORDERED = List.of(Kind.ENQUEUE, Kind.DELETE, Kind.HEARTBEAT,
      Kind.ACK_OLDEST, Kind.SUPERSEDE);

  record Step(Kind kind, int key, int pick) {}

  /** One record handed to the sink and not yet acknowledged (or already, for ACK_AGAIN). */
  record Handed(ExportKey key, Op op, ExportedEntry entry) {}

  /** The state as two full maps, as it was kept before the overlay. */
  static final class TwoMaps {
    final Map<ExportKey, ExportedEntry> enqueued = new HashMap<>();
    final Map<ExportKey, ExportedEntry> acknowledged = new HashMap<>();

    void acknowledge(Handed h) {
      if (h.op() == Op.DELETE) {
        acknowledged.remove(h.key());
      } else {
        acknowledged.put(h.key(), h.entry());
      }
    }

    void reset() {
      Map<ExportKey, ExportedEntry> reset = new HashMap<>();
      acknowledged.forEach((k, e) -> reset.put(k, e.withoutHash()));
      enqueued.forEach((k, e) -> reset.putIfAbsent(k, e.withoutHash()));
      enqueued.clear();
      enqueued.putAll(reset);
    }
  }

  @Provide
  Arbitrary<List<Step>> anything() {
    return steps(Arbitraries.of(Kind.class));
  }

  @Provide
  Arbitrary<List<Step>> asDelivered() {
    return steps(Arbitraries.of(ORDERED));
  }

  private static Arbitrary<List<Step>> steps(Arbitrary<Kind> kinds) {
    return Combinators.combine(kinds, Arbitraries.integers().between(0, KEYS.size() - 1),
        Arbitraries.integers().between(0, 50)).as(Step::new).list().ofMaxSize(60);
  }

  @Property(tries = 300)
  void theViewsSayWhatTwoFullMapsSaid(@ForAll("anything") List<Step> steps) {
    Run run = new Run();
    for (Step step : steps) {
      run.apply(step);
      run.assertSameAsTwoMaps();
    }
  }

  @Property(tries = 300)
  void theOverlayIsEmptyOnceEverythingHandedOverIsAcknowledgedInOrder(
      @ForAll("asDelivered") List<Step> steps) {
    Run run = new Run();
    for (Step step : steps) {
      run.apply(step);
    }
    while (!run.handed.isEmpty()) {
      run.apply(new Step(Kind.ACK_OLDEST, KEYS.indexOf(run.handed.get(0).key()), 0));
    }
    run.assertSameAsTwoMaps();
    assertThat(run.st.overlaySize()).isZero();
  }

  static final class Run {
    final SinkState st;
    final TwoMaps model = new TwoMaps();
    final List<Handed> handed = new ArrayList<>();
    final List<Handed> acknowledged = new ArrayList<>();
    long version;

    Run() {
      // one key acknowledged in an earlier run, as loaded from the checkpoint
      ExportedEntry loaded = entry(KEYS.get(0), 0);
      st = new SinkState("t", "s", Map.of(KEYS.get(0), loaded));
      model.enqueued.put(KEYS.get(0), loaded);
      model.acknowledged.put(KEYS.get(0), loaded);
    }

    ExportedEntry entry(ExportKey key, long v) {
      String name = key.toString().substring(key.toString().lastIndexOf('/') + 1);
      return ExportedEntry.sent(record("t", name, v).withSequence(v + 1), T0);
    }

    void apply(Step step) {
      ExportKey key = KEYS.get(step.key());
      switch (step.kind()) {
        case ENQUEUE -> {
          ExportedEntry e = entry(key, ++version);
          st.markEnqueued(key, e);
          model.enqueued.put(key, e);
          handed.add(new Handed(key, Op.UPSERT, e));
        }
        case DELETE -> {
          ExportedEntry last = st.markDeleted(key);
          assertThat(last).isEqualTo(model.enqueued.remove(key));
          if (last != null) {
            handed.add(new Handed(key, Op.DELETE, last));
          }
        }
        case HEARTBEAT -> {
          ExportedEntry e = st.enqueuedEntry(key);
          if (e != null) {
            // the same send time: equal to the entry it repeats, yet another instance
            ExportedEntry again = e.resent(e.sequence(), e.lastSentAt());
            st.markEnqueued(key, again);
            model.enqueued.put(key, again);
            handed.add(new Handed(key, Op.UPSERT, again));
          }
        }
        case ACK_OLDEST -> {
          for (Iterator<Handed> it = handed.iterator(); it.hasNext(); ) {
            Handed h = it.next();
            if (h.key().equals(key)) {
              it.remove();
              acknowledge(h);
              break;
            }
          }
        }
        case SUPERSEDE -> {
          // the channel replaces an unsent state by the newer one: only the key's last stays
          Handed last = null;
          for (Handed h : handed) {
            if (h.key().equals(key)) {
              last = h;
            }
          }
          Handed keep = last;
          handed.removeIf(h -> h.key().equals(key) && h != keep);
        }
        case ACK_ANY -> {
          if (!handed.isEmpty()) {
            acknowledge(handed.remove(step.pick() % handed.size()));
          }
        }
        case ACK_AGAIN -> {
          if (!acknowledged.isEmpty()) {
            acknowledge(acknowledged.get(step.pick() % acknowledged.size()));
          }
        }
        case REFUSE -> {
          if (!handed.isEmpty()) {
            Handed h = handed.remove(step.pick() % handed.size());
            st.refuse(h.key(), h.entry(), "refused");
          }
        }
        case RESET -> {
          st.resetToAcknowledged();
          model.reset();
        }
        case ADOPT -> {
          // an entry another shard kept, handed over for its DELETE (takeWaiting, then the DELETE)
          ExportedEntry theirs = entry(key, ++version);
          st.adoptForTombstones(Map.of(key, theirs));
          model.acknowledged.putIfAbsent(key, theirs);
          handed.add(new Handed(key, Op.DELETE, theirs));
        }
        default -> throw new IllegalStateException();
      }
    }

    void acknowledge(Handed h) {
      st.acknowledge(h.key(), h.op(), h.entry(), T0);
      model.acknowledge(h);
      acknowledged.add(h);
    }

    void assertSameAsTwoMaps() {
      assertThat(enqueued(st)).isEqualTo(model.enqueued);
      assertThat(st.enqueuedSize()).isEqualTo(model.enqueued.size());
      for (ExportKey key : KEYS) {
        assertThat(st.enqueuedEntry(key)).isEqualTo(model.enqueued.get(key));
      }
      assertThat(st.acknowledged).isEqualTo(model.acknowledged);
    }
  }
}
