package io.kollect.export;

import io.kollect.export.DeliveryChannel.Pending;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What each sink of a target must be handed to converge to the target's current set: the records
 * whose content differs from what the sink was last handed, each with a new sequence, and a DELETE
 * for each key that left the set. Each (target, sink)'s state is opened from its checkpoint the
 * first time the target names the sink ({@link CheckpointBook#open}).
 *
 * <p>Every method runs under the target's monitor, the caller's: that is what orders a diff
 * against the heartbeat of the same target. A key's enqueued entry ({@link
 * SinkState#markEnqueued}) is replaced before its record is enqueued, so what a heartbeat finds
 * there is never older than what was sent.
 *
 * <p>Within one call, a record handed to several sinks is handed over as one sent record and one
 * {@link ExportedEntry} with one sequence ({@link Offers}): every sink's state then holds the same
 * entry instead of a copy per sink, and the sequence is still larger than any the key had.
 */
final class SinkDiff {

  /**
   * The records handed over in one call, by the current record they were made from, so that every
   * sink that needs the same state gets the same instances. Lives for one call only.
   */
  private final class Offers {
    private record Sent(Record record, ExportedEntry entry) {}

    private final Instant now;
    /** {@code null} when the call has one sink: nothing to share. */
    private final IdentityHashMap<Record, Sent> sent;

    Offers(Instant now, int sinks) {
      this.now = now;
      this.sent = sinks > 1 ? new IdentityHashMap<>() : null;
    }

    /**
     * Hands {@code r} to the sink's buffer when its content differs from what was last handed over
     * for the key: a new state gets a new sequence (one per state and call, whichever sinks take
     * it), larger than any this key had (also before a restart).
     */
    void offerIfChanged(SinkState st, ExportKey key, Record r, List<Pending> out) {
      ExportedEntry prev = st.enqueuedEntry(key);
      if (prev == null || !r.hash().equals(prev.hash())) {
        Sent s = sent == null ? null : sent.get(r);
        if (s == null) {
          Record withSequence = r.withSequence(sequences.next());
          s = new Sent(withSequence, ExportedEntry.sent(withSequence, now));
          if (sent != null) {
            sent.put(r, s);
          }
        }
        st.markEnqueued(key, s.entry());
        out.add(new Pending(st, key, s.record(), s.entry()));
      }
    }
  }

  private final ConfiguredSinks sinks;
  private final CheckpointBook book;
  private final SequenceClock sequences;
  private final Clock clock;

  SinkDiff(ConfiguredSinks sinks, CheckpointBook book, SequenceClock sequences, Clock clock) {
    this.sinks = sinks;
    this.book = book;
    this.sequences = sequences;
    this.clock = clock;
  }

  /** Makes {@code current} the target's complete set and syncs every named sink to it. */
  void converge(TargetState ts, Set<String> sinkNames, Map<ExportKey, Record> current) {
    ts.removing = false;
    if (ts.current instanceof LinkedHashMap<ExportKey, Record> held && !held.isEmpty()
        && !current.isEmpty()) {
      // Keeps the key instances the sinks' states already hold (a map keeps its key on put),
      // so a key stays one object per exported object after a converge, not one per map.
      held.keySet().retainAll(current.keySet());
      held.putAll(current);
    } else {
      ts.current = current;
    }
    ts.complete = true;
    ts.requestedSinks = sinkNames;
    forgetSinksNotIn(ts, sinkNames);
    Offers offers = new Offers(clock.instant(), sinkNames.size());
    for (String sink : sinkNames) {
      sync(ts, sink, false, offers);
    }
  }

  /**
   * Applies a change to the target's set and hands exactly that change to every named sink: an
   * upsert that differs from what the sink was handed, a DELETE for a deleted key it was handed.
   */
  void update(TargetState ts, Set<String> sinkNames, Map<ExportKey, Record> changed,
      Collection<ExportKey> deletedKeys) {
    ts.removing = false;
    if (!(ts.current instanceof LinkedHashMap)) {
      ts.current = new LinkedHashMap<>(ts.current);
    }
    ts.current.putAll(changed);
    for (ExportKey key : deletedKeys) {
      ts.current.remove(key);
    }
    if (!sinkNames.equals(ts.requestedSinks)) {
      forgetSinksNotIn(ts, sinkNames);
      ts.requestedSinks = sinkNames;
    }
    Offers offers = new Offers(clock.instant(), sinkNames.size());
    for (String sink : sinkNames) {
      DeliveryChannel channel = sinks.accepting(ts.target, sink);
      if (channel == null) {
        continue;
      }
      SinkState st = ts.bySink.computeIfAbsent(sink, k -> open(ts.target, k));
      List<Pending> out = new ArrayList<>();
      for (Map.Entry<ExportKey, Record> e : changed.entrySet()) {
        offers.offerIfChanged(st, e.getKey(), e.getValue(), out);
      }
      for (ExportKey key : deletedKeys) {
        ExportedEntry prev = st.markDeleted(key);
        if (prev != null) {
          out.add(tombstoneOf(ts.target, st, key, prev));
        }
      }
      channel.enqueue(out);
    }
  }

  private void forgetSinksNotIn(TargetState ts, Set<String> sinkNames) {
    for (Iterator<Map.Entry<String, SinkState>> it = ts.bySink.entrySet().iterator();
        it.hasNext(); ) {
      Map.Entry<String, SinkState> e = it.next();
      if (!sinkNames.contains(e.getKey())) {
        forget(e.getValue());
        it.remove();
      }
    }
  }

  /**
   * Diffs the target's current set against what was enqueued for one sink and enqueues the
   * difference; with {@code resendAll} (the sink was replaced) against what it acknowledged, with
   * unknown content.
   */
  void sync(TargetState ts, String sink, boolean resendAll) {
    sync(ts, sink, resendAll, new Offers(clock.instant(), 1));
  }

  private void sync(TargetState ts, String sink, boolean resendAll, Offers offers) {
    DeliveryChannel channel = sinks.accepting(ts.target, sink);
    if (channel == null) {
      return;
    }
    SinkState st = ts.bySink.get(sink);
    if (st == null) {
      st = open(ts.target, sink);
      ts.bySink.put(sink, st);
    } else if (resendAll) {
      st.resetToAcknowledged();
    }
    List<Pending> out = new ArrayList<>();
    for (Map.Entry<ExportKey, Record> e : ts.current.entrySet()) {
      offers.offerIfChanged(st, e.getKey(), e.getValue(), out);
    }
    // Every current key is enqueued now, so vanished keys are enqueued exactly when more keys are
    // than current ones; an unchanged set costs one lookup per record and no second pass.
    // Until a converge handed over the complete set, a key missing from it proves nothing.
    if (ts.complete && st.enqueuedSize() > ts.current.size()) {
      List<ExportKey> vanished = new ArrayList<>();
      st.forEachEnqueued((key, entry) -> {
        if (!ts.current.containsKey(key)) {
          vanished.add(key);
        }
      });
      for (ExportKey key : vanished) {
        ExportedEntry last = st.markDeleted(key);
        if (last != null) {
          out.add(tombstoneOf(ts.target, st, key, last));
        }
      }
    }
    channel.enqueue(out);
  }

  /**
   * Sends a DELETE for every entry kept for another shard (see {@link SinkState#waiting}) of a
   * target that leaves with tombstones: the target leaves every shard at once, so a shard that
   * has not taken those entries over yet never will.
   */
  void tombstoneWaiting(TargetState ts) {
    for (SinkState st : ts.bySink.values()) {
      DeliveryChannel channel = sinks.get(st.sink);
      if (channel == null || sinks.isSuspended(st.sink)) {
        continue;
      }
      List<Pending> out = new ArrayList<>();
      for (Map.Entry<ExportKey, ExportedEntry> e : book.takeWaiting(st).entrySet()) {
        out.add(tombstoneOf(ts.target, st, e.getKey(), e.getValue()));
      }
      channel.enqueue(out);
    }
  }

  /** Drops a (target, sink) state: no tombstones, unsent records discarded, checkpoint deleted. */
  void forget(SinkState st) {
    book.forget(st);
    DeliveryChannel channel = sinks.get(st.sink);
    if (channel != null) {
      channel.purge(st);
    }
  }

  private SinkState open(String target, String sink) {
    DeliveryChannel channel = sinks.get(sink);
    return book.open(target, sink, channel != null && channel.sink().destinationSharedByShards());
  }

  /** The DELETE of a key that left the set, with a new sequence. */
  private Pending tombstoneOf(String target, SinkState st, ExportKey key, ExportedEntry last) {
    return new Pending(st, key, tombstone(target, last).withSequence(sequences.next()), last);
  }

  private Record tombstone(String target, ExportedEntry e) {
    return new Record(Op.DELETE, e.cluster(), recordTarget(target, e.cluster()), e.profile(),
        e.resource(), e.namespace(), e.name(), e.uid(), null, clock.instant(), null, null, null,
        null);
  }

  /**
   * The target a DELETE names. A target read from several clusters is exported under one key per
   * cluster, {@code cluster/ns/name} (cluster names hold no {@code /}), while its records name the
   * target itself, {@code ns/name}: a DELETE must name it the same way as the UPSERT it undoes.
   */
  static String recordTarget(String exportKey, String cluster) {
    if (cluster != null && exportKey.startsWith(cluster + "/")
        && exportKey.indexOf('/', cluster.length() + 1) > 0) {
      return exportKey.substring(cluster.length() + 1);
    }
    return exportKey;
  }
}
