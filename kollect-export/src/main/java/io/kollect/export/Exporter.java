package io.kollect.export;

import io.kollect.export.DeliveryChannel.Pending;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes every configured sink converge to each target's desired set of records.
 *
 * <p>For each (target, sink) the exporter remembers the content hash it last handed to the sink
 * per record key. {@link #converge} sends an UPSERT for every new or changed record and a DELETE
 * tombstone for every key that left the desired set; unchanged records are not sent again until the
 * sink's heartbeat, which re-sends the full current set once per {@link
 * SinkOptions#heartbeatInterval()}, spread evenly over the interval.
 *
 * <p><b>Sequences.</b> Every record handed to a sink carries a {@link Record#sequence() sequence}
 * that increases per key: a new state (and a DELETE) gets a new one from a hybrid clock ({@link
 * SequenceClock}: the larger of the last issued or checkpointed value plus one and the wall clock
 * in microseconds), a retry or a heartbeat repeats the sequence of the state it carries. A
 * receiver that keeps, per key, the largest sequence it has seen and ignores anything not larger
 * ends exact even when a request the exporter gave up on (a timeout) is applied after a newer one.
 *
 * <p><b>Delivery.</b> Each sink has its own bounded set of delivery threads and, per target, a
 * pending buffer that coalesces by object key, so an outage costs memory proportional to the
 * changed objects, a newer state always replaces an unsent older one, and per-key order is kept;
 * a retry always carries the newest state of its keys. Targets are isolated: one target's slow,
 * failing or refused records never delay another target's on the same sink. Retryable failures
 * are retried indefinitely with exponential backoff and jitter per target (honouring {@link
 * SinkException#retryAfter()}); records a sink refuses for good ({@link RecordsRejectedException},
 * or a permanent {@link SinkException} bisected down to one record) are dropped, reported in {@link
 * #deliveryStatus} and not offered again until their content changes.
 *
 * <p>What each sink acknowledged is saved through the {@link CheckpointStore} (coalesced, at most
 * once per {@code checkpointInterval} per (target, sink), and on {@link #close()}) as a delta of
 * the keys acknowledged since the last write ({@link CheckpointStore#apply}), with each key's
 * sequence and last send time: after a restart the first converge of a target tombstones keys
 * deleted while the process was down, skips records that did not change, continues sequences above
 * the checkpointed ones, and the heartbeat resumes where it was instead of re-sending everything.
 *
 * <p>Thread-safe. {@code converge} may be called concurrently for different targets; calls for the
 * same target must not overlap (they are serialised, but their order would be arbitrary).
 */
public final class Exporter implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Exporter.class);

  /** Heartbeat slices per interval: each tick re-sends the keys of one slice. */
  static final int HEARTBEAT_SLICES = 64;

  private final CheckpointStore checkpoints;
  private final ExportMetrics metrics;
  private final Clock clock;
  private final SequenceClock sequences;
  private final Duration closeTimeout;
  /** Which (target, record key) this exporter answers for; see {@link Builder#ownedKeys}. */
  private final BiPredicate<String, String> ownedKeys;
  private final ConcurrentHashMap<String, DeliveryChannel> channels = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, ScheduledFuture<?>> heartbeats = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, TargetState> targets = new ConcurrentHashMap<>();
  private final Set<String> warnedUnknownSinks = ConcurrentHashMap.newKeySet();
  /** Sinks nothing is handed to until resumed; what they were handed stays as it was. */
  private final Set<String> suspendedSinks = ConcurrentHashMap.newKeySet();
  private final ScheduledThreadPoolExecutor scheduler;
  private final Object sinkLock = new Object();
  private volatile boolean closed;
  private volatile boolean checkpointFailing;

  private Exporter(Builder b) {
    this.checkpoints = b.checkpointStore;
    this.metrics = new SafeMetrics(b.metrics);
    this.clock = b.clock;
    this.sequences = new SequenceClock(b.clock);
    this.closeTimeout = b.closeTimeout;
    this.ownedKeys = b.ownedKeys;
    this.scheduler = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "kollect-export-scheduler");
      t.setDaemon(true);
      return t;
    });
    scheduler.setRemoveOnCancelPolicy(true);
    scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    long every = b.checkpointInterval.toMillis();
    scheduler.scheduleWithFixedDelay(() -> saveCheckpoints(false), every, every,
        TimeUnit.MILLISECONDS);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Configures an {@link Exporter}; every setting has a default. */
  public static final class Builder {
    private CheckpointStore checkpointStore = CheckpointStore.none();
    private ExportMetrics metrics = ExportMetrics.noop();
    private Clock clock = Clock.systemUTC();
    private Duration closeTimeout = Duration.ofSeconds(5);
    private Duration checkpointInterval = Duration.ofSeconds(1);
    private BiPredicate<String, String> ownedKeys = (target, key) -> true;

    private Builder() {}

    /**
     * Which record keys of a target this exporter answers for (default: all). A checkpointed key
     * that fails the test is left out when its checkpoint is loaded, silently: no DELETE, no
     * heartbeat. For a sink whose destination every shard shares ({@link
     * Sink#destinationSharedByShards()}) it stays in the stored checkpoint, for the exporter that
     * answers for it now to take over ({@link CheckpointStore#loadPeers}), and a key that passes
     * the test and that a peer store holds is taken over from it; for any other sink it leaves
     * the stored checkpoint. This is how a change of the shard count moves objects
     * between shards: the new owner continues from the old owner's entry, so it tombstones an
     * object deleted while it moved and does not re-send one that did not change; a tombstone
     * from the old owner would delete, at the receiver, what the new owner keeps sending.
     *
     * @param owned tested with the target (as passed to {@link #converge}) and the record key
     */
    public Builder ownedKeys(BiPredicate<String, String> owned) {
      this.ownedKeys = Objects.requireNonNull(owned, "owned");
      return this;
    }

    /** Where acknowledged state survives restarts (default: nowhere). */
    public Builder checkpointStore(CheckpointStore store) {
      this.checkpointStore = Objects.requireNonNull(store, "checkpointStore");
      return this;
    }

    /** Where delivery counters go (default: nowhere). */
    public Builder metrics(ExportMetrics metrics) {
      this.metrics = Objects.requireNonNull(metrics, "metrics");
      return this;
    }

    /** Time source for tombstones' {@code observedAt} and last-success times. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** How long {@link #close()} keeps delivering pending records (default 5 s). */
    public Builder closeTimeout(Duration timeout) {
      if (timeout == null || timeout.isNegative()) {
        throw new IllegalArgumentException("closeTimeout: must be zero or positive, got " + timeout);
      }
      this.closeTimeout = timeout;
      return this;
    }

    /** Least time between two checkpoint writes of one (target, sink) (default 1 s). */
    public Builder checkpointInterval(Duration interval) {
      if (interval == null || interval.toMillis() < 1) {
        throw new IllegalArgumentException(
            "checkpointInterval: must be at least 1 ms, got " + interval);
      }
      this.checkpointInterval = interval;
      return this;
    }

    public Exporter build() {
      return new Exporter(this);
    }
  }

  /**
   * Adds a sink and starts delivering to it. A sink with the same name is replaced: the old one is
   * stopped without draining and closed, and the new one receives every target's full current set
   * plus tombstones for keys the old one acknowledged that are gone. Targets that already named
   * this sink in {@link #converge} are synced to it immediately.
   */
  public void addSink(Sink sink, SinkOptions options) {
    Objects.requireNonNull(sink, "sink");
    Objects.requireNonNull(options, "options");
    String name = Objects.requireNonNull(sink.name(), "sink name");
    if (name.isBlank()) {
      throw new IllegalArgumentException("sink name: must not be blank");
    }
    synchronized (sinkLock) {
      ensureOpen();
      DeliveryChannel channel = new DeliveryChannel(sink, options, metrics, clock);
      DeliveryChannel old = channels.put(name, channel);
      ScheduledFuture<?> oldBeat = heartbeats.remove(name);
      if (oldBeat != null) {
        oldBeat.cancel(false);
      }
      if (old != null) {
        old.stop(Duration.ZERO);
      }
      warnedUnknownSinks.remove(name);
      channel.start();
      for (TargetState ts : targets.values()) {
        synchronized (ts) {
          if (!ts.discarded && ts.requestedSinks.contains(name)) {
            syncLocked(ts, name, old != null);
          }
        }
      }
      scheduleHeartbeat(channel);
    }
  }

  /**
   * Stops delivering to a sink (pending records are drained for up to the close timeout) and
   * closes it. Its checkpoints are kept, so adding it again later only sends what changed.
   */
  public void removeSink(String name) {
    synchronized (sinkLock) {
      DeliveryChannel channel = channels.remove(name);
      if (channel == null) {
        return;
      }
      ScheduledFuture<?> beat = heartbeats.remove(name);
      if (beat != null) {
        beat.cancel(false);
      }
      channel.stop(closeTimeout);
      for (TargetState ts : targets.values()) {
        synchronized (ts) {
          SinkState st = ts.bySink.remove(name);
          if (st != null) {
            saveNow(st, false);
            st.detached = true;
          }
        }
      }
    }
  }

  /**
   * Pauses or resumes handing records to a sink (a sink need not be configured yet). While
   * suspended nothing new is offered to it, heartbeats skip it, and what it was last handed is
   * kept (records already buffered before the call are still delivered); targets' sets keep
   * changing. On resume each target's current set is diffed against what the sink was handed, so
   * it receives only what changed meanwhile: new and changed records, and tombstones for what
   * left. Costs O(targets × their records) on resume, nothing while suspended.
   */
  public void setSinkSuspended(String name, boolean suspended) {
    Objects.requireNonNull(name, "name");
    synchronized (sinkLock) {
      if (suspended) {
        suspendedSinks.add(name);
        return;
      }
      if (!suspendedSinks.remove(name)) {
        return;
      }
      for (TargetState ts : targets.values()) {
        synchronized (ts) {
          if (!ts.discarded && ts.requestedSinks.contains(name)) {
            syncLocked(ts, name, false);
          }
        }
      }
    }
  }

  /** Whether the sink is suspended ({@link #setSinkSuspended}). */
  public boolean isSinkSuspended(String name) {
    return suspendedSinks.contains(name);
  }

  /** Names of the sinks currently configured, sorted. */
  public SortedSet<String> sinkNames() {
    return Collections.unmodifiableSortedSet(new TreeSet<>(channels.keySet()));
  }

  /** Unsent records buffered for a sink (coalesced: at most one per object key and target). */
  public int queueDepth(String sinkName) {
    DeliveryChannel channel = channels.get(sinkName);
    if (channel == null) {
      throw new IllegalArgumentException("sink " + sinkName + ": not configured");
    }
    return channel.depth();
  }

  /**
   * How delivery of one target's records to one sink is going: last acknowledged delivery, records
   * pending, the current failure streak and its last error, and the records the sink refused for
   * good. Empty when the sink is not configured or the target does not (or no longer) export to
   * it. Cheap: a host may poll it for status and metrics.
   */
  public Optional<DeliveryStatus> deliveryStatus(String target, String sink) {
    DeliveryChannel channel = channels.get(sink);
    TargetState ts = targets.get(target);
    if (channel == null || ts == null) {
      return Optional.empty();
    }
    SinkState st;
    synchronized (ts) {
      st = ts.discarded ? null : ts.bySink.get(sink);
    }
    if (st == null) {
      return Optional.empty();
    }
    Optional<DeliveryChannel.LaneStatus> lane = channel.status(target);
    Instant lastAck = lane.map(DeliveryChannel.LaneStatus::lastAcknowledged)
        .orElse(null);
    return Optional.of(new DeliveryStatus(
        lastAck != null ? lastAck : st.restoredLastAcknowledged,
        lane.map(DeliveryChannel.LaneStatus::pending).orElse(0),
        lane.map(DeliveryChannel.LaneStatus::consecutiveFailures).orElse(0),
        lane.map(DeliveryChannel.LaneStatus::failingSince).orElse(null),
        lane.map(DeliveryChannel.LaneStatus::lastError).orElse(null),
        st.rejections(DeliveryStatus.MAX_REPORTED_REJECTIONS)));
  }

  /**
   * Makes the named sinks converge to {@code desired}, the complete current set of UPSERT records
   * of {@code target}. Sinks newly named get the whole set (less what their checkpoint shows as
   * already delivered); sinks no longer named forget this target without tombstones.
   *
   * @throws IllegalArgumentException when a record is not an UPSERT or has no content hash
   */
  public void converge(String target, Set<String> sinkNames, Collection<Record> desired) {
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(sinkNames, "sinkNames");
    Objects.requireNonNull(desired, "desired");
    ensureOpen();
    Map<String, Record> current = index(target, desired);
    Set<String> sinks = Set.copyOf(sinkNames);
    underTargetLock(target, ts -> convergeLocked(ts, sinks, current));
  }

  /**
   * Runs {@code action} holding the monitor of the target's state, created if missing; a state a
   * concurrent removal discarded meanwhile is looked up again.
   */
  private void underTargetLock(String target, java.util.function.Consumer<TargetState> action) {
    while (true) {
      TargetState ts = targets.computeIfAbsent(target, TargetState::new);
      synchronized (ts) {
        if (ts.discarded) {
          continue;
        }
        action.accept(ts);
        return;
      }
    }
  }

  /**
   * Applies a change to the target's desired set without touching any other key: each of {@code
   * upserts} replaces the record of its key, each of {@code deletedKeys} leaves the set (a DELETE
   * goes to every sink that was handed the key). Costs O(changed × sinks), whatever the size of
   * the set, which is what makes per-event export cheap.
   *
   * <p>Unlike {@link #converge}, this never concludes that an unmentioned key is gone, so it may
   * run while the target's set is still being listed (keys known from a checkpoint are neither
   * re-sent nor tombstoned until the first {@code converge}). A sink named here for the first
   * time receives only these changes; sinks no longer named forget this target. Call {@code
   * converge} when the sink set changes, so newly named sinks receive the whole set. A key both
   * upserted and deleted in one call ends deleted.
   *
   * <p>Apart from a change of the sink set (which costs O(sinks), plus loading the checkpoint of a
   * newly named sink once), nothing here is proportional to the size of the target's set.
   *
   * @throws IllegalArgumentException when an upsert is not an UPSERT or has no content hash
   */
  public void update(String target, Set<String> sinkNames, Collection<Record> upserts,
      Collection<String> deletedKeys) {
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(sinkNames, "sinkNames");
    Objects.requireNonNull(upserts, "upserts");
    Objects.requireNonNull(deletedKeys, "deletedKeys");
    ensureOpen();
    Map<String, Record> changed = index(target, upserts);
    Set<String> sinks = Set.copyOf(sinkNames);
    underTargetLock(target, ts -> updateLocked(ts, sinks, changed, deletedKeys));
  }

  /** Caller holds {@code ts}'s monitor. */
  private void updateLocked(TargetState ts, Set<String> sinks, Map<String, Record> changed,
      Collection<String> deletedKeys) {
    ts.removing = false;
    if (!(ts.current instanceof LinkedHashMap)) {
      ts.current = new LinkedHashMap<>(ts.current);
    }
    ts.current.putAll(changed);
    for (String key : deletedKeys) {
      ts.current.remove(key);
    }
    if (!sinks.equals(ts.requestedSinks)) {
      for (Iterator<Map.Entry<String, SinkState>> it = ts.bySink.entrySet().iterator();
          it.hasNext(); ) {
        Map.Entry<String, SinkState> e = it.next();
        if (!sinks.contains(e.getKey())) {
          forget(e.getValue());
          it.remove();
        }
      }
      ts.requestedSinks = sinks;
    }
    Instant now = clock.instant();
    for (String sink : sinks) {
      if (suspendedSinks.contains(sink)) {
        continue; // resuming diffs the whole current set against what it was handed
      }
      DeliveryChannel channel = channels.get(sink);
      if (channel == null) {
        if (warnedUnknownSinks.add(sink)) {
          LOG.warn("target {} names sink {}, which is not configured; its records are sent once "
              + "the sink is added", ts.target, sink);
        }
        continue;
      }
      SinkState st = ts.bySink.computeIfAbsent(sink,
          k -> newSinkState(ts.target, k));
      List<Pending> out = new ArrayList<>();
      for (Map.Entry<String, Record> e : changed.entrySet()) {
        offerIfChanged(st, e.getKey(), e.getValue(), now, out);
      }
      for (String key : deletedKeys) {
        ExportedEntry prev = st.enqueued.remove(key);
        if (prev != null) {
          out.add(tombstoneOf(ts.target, st, key, prev));
        }
      }
      channel.enqueue(out);
    }
  }

  /**
   * Stops exporting a target. With {@code sendTombstones} every sink that holds its records gets a
   * DELETE for each (including keys only known from a checkpoint) and the checkpoints are removed
   * once those are acknowledged; without, the target's state and checkpoints are simply forgotten.
   */
  public void removeTarget(String target, boolean sendTombstones) {
    Objects.requireNonNull(target, "target");
    ensureOpen();
    while (true) {
      TargetState ts = sendTombstones
          ? targets.computeIfAbsent(target, TargetState::new)
          : targets.get(target);
      if (ts == null) {
        for (String sink : channels.keySet()) {
          deleteCheckpoint(target, sink);
        }
        return;
      }
      synchronized (ts) {
        if (ts.discarded) {
          continue;
        }
        if (sendTombstones) {
          Set<String> sinks = ts.requestedSinks.isEmpty() && ts.bySink.isEmpty()
              ? Set.copyOf(channels.keySet())
              : ts.requestedSinks;
          convergeLocked(ts, sinks, Map.of());
          tombstoneWaiting(ts);
          ts.removing = true;
        } else {
          for (SinkState st : ts.bySink.values()) {
            forget(st);
          }
          ts.bySink.clear();
          ts.discarded = true;
          targets.remove(target, ts);
        }
        return;
      }
    }
  }

  /**
   * Sends a DELETE for every entry kept for another shard (see {@link SinkState#waiting}) of a
   * target that leaves with tombstones: the target leaves every shard at once, so a shard that
   * has not taken those entries over yet never will. Caller holds {@code ts}'s monitor.
   */
  private void tombstoneWaiting(TargetState ts) {
    for (SinkState st : ts.bySink.values()) {
      DeliveryChannel channel = channels.get(st.sink);
      if (channel == null || suspendedSinks.contains(st.sink)) {
        continue;
      }
      Map<String, ExportedEntry> waiting;
      synchronized (st.saveLock) {
        waiting = st.waiting;
        st.waiting = Map.of();
      }
      List<Pending> out = new ArrayList<>();
      for (Map.Entry<String, ExportedEntry> e : waiting.entrySet()) {
        // acknowledged until its DELETE is: that is what removes it from the store
        st.acknowledged.putIfAbsent(e.getKey(), e.getValue());
        out.add(tombstoneOf(ts.target, st, e.getKey(), e.getValue()));
      }
      channel.enqueue(out);
    }
  }

  /**
   * Waits until every sink's buffer is empty and no batch is in flight.
   *
   * @return false when {@code timeout} passed first (e.g. a sink is down)
   */
  public boolean awaitIdle(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      for (DeliveryChannel channel : List.copyOf(channels.values())) {
        if (!channel.awaitIdle(deadline)) {
          return false;
        }
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * Delivers what is pending for up to the close timeout, then stops every delivery thread, closes
   * the sinks and writes the final checkpoints. Records still undelivered are not lost: the
   * checkpoint holds only acknowledged state, so they are sent again after a restart.
   */
  @Override
  public void close() {
    synchronized (sinkLock) {
      if (closed) {
        return;
      }
      closed = true;
    }
    scheduler.shutdownNow();
    try {
      scheduler.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    long deadline = System.nanoTime() + closeTimeout.toNanos();
    List<DeliveryChannel> all = List.copyOf(channels.values());
    for (DeliveryChannel channel : all) {
      long left = Math.max(0, deadline - System.nanoTime());
      channel.stop(Duration.ofNanos(left));
    }
    channels.clear();
    saveCheckpoints(true);
  }

  // ---------------------------------------------------------------------------------------------

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("exporter is closed");
    }
  }

  private static Map<String, Record> index(String target, Collection<Record> desired) {
    Map<String, Record> current = new LinkedHashMap<>(Math.max(16, desired.size() * 4 / 3 + 1));
    for (Record r : desired) {
      Objects.requireNonNull(r, "desired record");
      if (r.op() != Op.UPSERT) {
        throw new IllegalArgumentException("desired record " + r.key() + " of target " + target
            + ": op must be UPSERT, got " + r.op());
      }
      if (r.contentHash() == null) {
        throw new IllegalArgumentException("desired record " + r.key() + " of target " + target
            + ": contentHash must be set");
      }
      current.put(r.key(), r);
    }
    return current;
  }

  /** Caller holds {@code ts}'s monitor. */
  private void convergeLocked(TargetState ts, Set<String> sinks, Map<String, Record> current) {
    ts.removing = false;
    ts.current = current;
    ts.complete = true;
    ts.requestedSinks = sinks;
    for (Iterator<Map.Entry<String, SinkState>> it = ts.bySink.entrySet().iterator();
        it.hasNext(); ) {
      Map.Entry<String, SinkState> e = it.next();
      if (!sinks.contains(e.getKey())) {
        forget(e.getValue());
        it.remove();
      }
    }
    for (String sink : sinks) {
      syncLocked(ts, sink, false);
    }
  }

  /**
   * Diffs the target's current set against what was enqueued for one sink and enqueues the
   * difference. Caller holds {@code ts}'s monitor, which is what orders this against heartbeats.
   */
  private void syncLocked(TargetState ts, String sink, boolean resendAll) {
    if (suspendedSinks.contains(sink)) {
      return;
    }
    DeliveryChannel channel = channels.get(sink);
    if (channel == null) {
      if (warnedUnknownSinks.add(sink)) {
        LOG.warn("target {} names sink {}, which is not configured; its records are sent once the "
            + "sink is added", ts.target, sink);
      }
      return;
    }
    SinkState st = ts.bySink.get(sink);
    if (st == null) {
      st = newSinkState(ts.target, sink);
      ts.bySink.put(sink, st);
    } else if (resendAll) {
      st.resetToAcknowledged();
    }
    Map<String, ExportedEntry> enqueued = st.enqueued;
    List<Pending> out = new ArrayList<>();
    Instant now = clock.instant();
    for (Map.Entry<String, Record> e : ts.current.entrySet()) {
      offerIfChanged(st, e.getKey(), e.getValue(), now, out);
    }
    // Every current key is in `enqueued` now, so it holds vanished keys exactly when it is larger;
    // an unchanged set costs one lookup per record and no second pass.
    // Until a converge handed over the complete set, a key missing from it proves nothing.
    if (ts.complete && enqueued.size() > ts.current.size()) {
      for (Iterator<Map.Entry<String, ExportedEntry>> it = enqueued.entrySet().iterator();
          it.hasNext(); ) {
        Map.Entry<String, ExportedEntry> e = it.next();
        if (!ts.current.containsKey(e.getKey())) {
          it.remove();
          out.add(tombstoneOf(ts.target, st, e.getKey(), e.getValue()));
        }
      }
    }
    channel.enqueue(out);
  }

  /**
   * Hands {@code r} to the sink's buffer when its content differs from what was last handed over
   * for the key: a new state gets a new sequence, larger than any this key had (also before a
   * restart). Caller holds the target's monitor.
   */
  private void offerIfChanged(SinkState st, String key, Record r, Instant now,
      List<Pending> out) {
    ExportedEntry prev = st.enqueued.get(key);
    if (prev == null || !r.contentHash().equals(prev.contentHash())) {
      Record sent = r.withSequence(sequences.next());
      ExportedEntry entry = ExportedEntry.sent(sent, now);
      st.enqueued.put(key, entry);
      out.add(new Pending(st, key, sent, entry));
    }
  }

  /** The DELETE of a key that left the set, with a new sequence. */
  private Pending tombstoneOf(String target, SinkState st, String key, ExportedEntry last) {
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

  /** Drops a (target, sink) state: no tombstones, unsent records discarded, checkpoint deleted. */
  private void forget(SinkState st) {
    synchronized (st.saveLock) {
      st.detached = true;
      deleteCheckpoint(st.target, st.sink);
    }
    DeliveryChannel channel = channels.get(st.sink);
    if (channel != null) {
      channel.purge(st);
    }
  }

  /** The export state of a (target, sink) as its checkpoint (and its peers') leave it. */
  private SinkState newSinkState(String target, String sink) {
    DeliveryChannel channel = channels.get(sink);
    Loaded loaded = loadCheckpoint(target, sink,
        channel != null && channel.sink().destinationSharedByShards());
    SinkState st = new SinkState(target, sink, loaded.entries());
    st.waiting = loaded.waiting();
    return st;
  }

  /**
   * What loading a (target, sink) gives: the export state, and the entries of the stored
   * checkpoint whose objects another exporter answers for now, which stay stored for it.
   */
  private record Loaded(Map<String, ExportedEntry> entries, Map<String, ExportedEntry> waiting) {
    static final Loaded EMPTY = new Loaded(Map.of(), Map.of());
  }

  /**
   * Loads a checkpoint, takes over what the store's peers hold of this exporter's keys, moves the
   * sequence clock past every sequence seen, and gives every entry of the state a new sequence,
   * which the heartbeat then repeats.
   *
   * <p><b>Handover</b> (a change of the shard count; see {@link Builder#ownedKeys}), for a sink
   * whose destination every shard shares ({@link Sink#destinationSharedByShards()}; for any other
   * the entries of keys another exporter answers for are removed from the store and no peer is
   * read, since what another shard's instance was acknowledged says nothing about this one's
   * destination). Entries of
   * keys another exporter answers for now are left out of the state (no DELETE, no heartbeat) but
   * stay in the store: they wait there for their new owner, so it does not matter which shard
   * restarts first. Entries the peers hold ({@link CheckpointStore#loadPeers}) of keys this
   * exporter answers for are compared with its own: per key the copy with the largest sequence
   * wins (it is the state the sink was last handed, by whichever shard; on a tie the own copy),
   * is written to the own checkpoint ({@link CheckpointStore#apply}) and only then removed from
   * the peers ({@link CheckpointStore#takeOver}). A crash between the two leaves a key in two
   * stores, which the next load resolves the same way; a failed write skips the removal, so a
   * key is never in no store. The first converge then tombstones inherited objects that are gone,
   * sends inherited objects that changed, and nothing else.
   *
   * <p>Why not keep the checkpointed sequences: the checkpoint may lag what the sink acknowledged
   * (a {@code kill -9} between two writes). If a newer state of a key was delivered but not
   * checkpointed, and the object then went back to the checkpointed content, the receiver holds
   * the newer state with a larger sequence than the checkpoint's; a heartbeat repeating the
   * checkpointed sequence would be refused forever. A sequence issued now is larger than every
   * one issued before the restart, so the heartbeat repairs that receiver. Entries of a checkpoint
   * written before sequences existed are covered by the same rule.
   */
  private Loaded loadCheckpoint(String target, String sink, boolean handover) {
    Map<String, ExportedEntry> loaded;
    try {
      loaded = checkpoints.load(target, sink);
    } catch (RuntimeException e) {
      LOG.warn("cannot load checkpoint of target {} sink {}; treating it as empty (objects deleted "
          + "while the exporter was down get no tombstone): {}", target, sink, e.toString());
      return Loaded.EMPTY;
    }
    Map<String, ExportedEntry> own = new LinkedHashMap<>();
    Map<String, ExportedEntry> waiting = new HashMap<>();
    if (loaded != null) {
      for (Map.Entry<String, ExportedEntry> e : loaded.entrySet()) {
        observe(e.getValue());
        (ownedKeys.test(target, e.getKey()) ? own : waiting).put(e.getKey(), e.getValue());
      }
    }
    if (!handover) {
      // A destination of this sink instance alone: nobody else's entry says what it holds, and
      // nobody takes this one's lost entries over.
      if (!waiting.isEmpty()) {
        forgetDisowned(target, sink, waiting.keySet());
      }
      own.replaceAll((k, e) -> e.withSequence(sequences.next()));
      return new Loaded(own, Map.of());
    }
    Map<String, ExportedEntry> adopted = new HashMap<>();
    Set<String> taken = new HashSet<>();
    for (Map<String, ExportedEntry> peer : loadPeers(target, sink)) {
      for (Map.Entry<String, ExportedEntry> e : peer.entrySet()) {
        ExportedEntry theirs = e.getValue();
        if (theirs == null || theirs.resource() == null) {
          continue;
        }
        observe(theirs);
        String key = e.getKey();
        if (!ownedKeys.test(target, key)) {
          continue;
        }
        taken.add(key);
        ExportedEntry best = adopted.containsKey(key) ? adopted.get(key) : own.get(key);
        if (best == null || newer(theirs, best)) {
          adopted.put(key, theirs);
        }
      }
    }
    if (!adopted.isEmpty()) {
      own.putAll(adopted);
      try {
        checkpoints.apply(target, sink, adopted, Set.of());
      } catch (RuntimeException e) {
        // The peers keep their copies: the next load takes them over again. Until then the
        // state holds them, so the first converge still tombstones what is gone.
        LOG.warn("cannot write the records taken over from other shards into the checkpoint of "
            + "target {} sink {}; they stay with those shards for now: {}", target, sink,
            e.toString());
        taken.clear();
      }
    }
    if (!taken.isEmpty()) {
      try {
        checkpoints.takeOver(target, sink, taken);
      } catch (RuntimeException e) {
        // harmless: the copies left behind are taken over again by the next load
        LOG.warn("cannot remove records taken over from the checkpoints of other shards (target "
            + "{} sink {}): {}", target, sink, e.toString());
      }
    }
    if (!adopted.isEmpty() || !waiting.isEmpty()) {
      LOG.info("target {} sink {}: took over {} checkpointed records from other shards; {} of "
          + "this checkpoint belong to another shard now and are kept for it, without tombstones",
          target, sink, adopted.size(), waiting.size());
    }
    own.replaceAll((k, e) -> e.withSequence(sequences.next()));
    return new Loaded(own, waiting);
  }

  /**
   * Removes keys another exporter now answers for from the stored checkpoint of a sink whose
   * destination is this exporter's alone ({@link Sink#destinationSharedByShards()} false), so a
   * later restart does not load them again. Their sequences were observed all the same: a key
   * that comes back to this exporter later continues above them.
   */
  private void forgetDisowned(String target, String sink, Set<String> disowned) {
    LOG.info("target {} sink {}: {} checkpointed records belong to another shard now; forgetting "
        + "them without tombstones", target, sink, disowned.size());
    try {
      checkpoints.apply(target, sink, Map.of(), Set.copyOf(disowned));
    } catch (RuntimeException e) {
      // harmless: the next load drops them again
      LOG.warn("cannot remove records of another shard from the checkpoint of target {} sink {}: "
          + "{}", target, sink, e.toString());
    }
  }

  private List<Map<String, ExportedEntry>> loadPeers(String target, String sink) {
    try {
      List<Map<String, ExportedEntry>> peers = checkpoints.loadPeers(target, sink);
      return peers == null ? List.of() : peers;
    } catch (RuntimeException e) {
      LOG.warn("cannot read the checkpoints of other shards for target {} sink {}; records they "
          + "hold of this shard's objects are sent as new (an object deleted while it moved "
          + "gets no tombstone): {}", target, sink, e.toString());
      return List.of();
    }
  }

  private void observe(ExportedEntry e) {
    if (e != null && e.sequence() != null) {
      sequences.observe(e.sequence());
    }
  }

  /** Whether {@code a} is a later state of its key than {@code b}: it has the larger sequence. */
  private static boolean newer(ExportedEntry a, ExportedEntry b) {
    return a.sequence() != null && (b.sequence() == null || a.sequence() > b.sequence());
  }

  private void deleteCheckpoint(String target, String sink) {
    try {
      checkpoints.delete(target, sink);
    } catch (RuntimeException e) {
      LOG.warn("cannot delete checkpoint of target {} sink {}: {}", target, sink, e.toString());
    }
  }

  // ---- heartbeats -------------------------------------------------------------------------------

  private void scheduleHeartbeat(DeliveryChannel channel) {
    Duration interval = channel.options().heartbeatInterval();
    if (interval.isZero()) {
      return;
    }
    long periodNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(1),
        interval.toNanos() / HEARTBEAT_SLICES);
    AtomicInteger tick = new AtomicInteger();
    ScheduledFuture<?> future = scheduler.scheduleAtFixedRate(
        () -> heartbeatTick(channel, Math.floorMod(tick.getAndIncrement(), HEARTBEAT_SLICES)),
        periodNanos, periodNanos, TimeUnit.NANOSECONDS);
    heartbeats.put(channel.name(), future);
  }

  /**
   * Re-sends one slice of every target's current set to one sink. Slices come from a hash of
   * (target, key), so the load is spread evenly over the interval. A key sent less than half an
   * interval ago (its slice came up just after a converge sent it, or the checkpoint of the last
   * run shows it was sent shortly before a restart) waits for its next turn, so every key is
   * re-sent between half and one and a half intervals after it was last sent, and a restart does
   * not re-send everything within one interval. Runs under the target's monitor and reads the
   * current record, so it can only re-send the newest state, with that state's sequence: it never
   * overtakes a converge. A state the sink refused for good is not offered again.
   */
  private void heartbeatTick(DeliveryChannel channel, int slice) {
    if (suspendedSinks.contains(channel.name())) {
      return;
    }
    Instant now = clock.instant();
    Duration minAge = channel.options().heartbeatInterval().dividedBy(2);
    try {
      for (TargetState ts : targets.values()) {
        synchronized (ts) {
          if (ts.discarded || channels.get(channel.name()) != channel) {
            continue;
          }
          SinkState st = ts.bySink.get(channel.name());
          if (st == null) {
            continue;
          }
          List<Pending> out = new ArrayList<>();
          for (Map.Entry<String, Record> e : ts.current.entrySet()) {
            String key = e.getKey();
            if (heartbeatSlice(ts.target, key) != slice) {
              continue;
            }
            ExportedEntry entry = st.enqueued.get(key);
            Instant lastSent = entry == null ? null : entry.lastSentAt();
            if (entry == null || (lastSent != null
                && Duration.between(lastSent, now).compareTo(minAge) < 0)
                || st.isRefused(key, entry)) {
              continue;
            }
            entry = new ExportedEntry(entry.resource(), entry.namespace(), entry.name(),
                entry.uid(), entry.profile(), entry.contentHash(), entry.cluster(),
                entry.sequence() != null ? entry.sequence() : sequences.next(), now);
            st.enqueued.put(key, entry);
            out.add(new Pending(st, key, e.getValue().withSequence(entry.sequence()), entry));
          }
          channel.enqueue(out);
        }
      }
    } catch (RuntimeException e) {
      LOG.warn("heartbeat of sink {} failed: {}", channel.name(), e.toString());
    }
  }

  /** For tests: runs one heartbeat tick of a sink now, as its schedule would. */
  void heartbeatTick(String sink, int slice) {
    DeliveryChannel channel = channels.get(sink);
    if (channel != null) {
      heartbeatTick(channel, slice);
    }
  }

  static int heartbeatSlice(String target, String key) {
    int h = target.hashCode() * 31 + key.hashCode();
    h ^= h >>> 16;
    h *= 0x9E3779B1;
    h ^= h >>> 15;
    return Math.floorMod(h, HEARTBEAT_SLICES);
  }

  // ---- checkpoints ------------------------------------------------------------------------------

  /**
   * Writes dirty checkpoints and completes removals whose tombstones were all acknowledged. The
   * last write ({@code closing}) also writes states whose send times alone changed, so a graceful
   * restart resumes the heartbeat where it was without heartbeats costing periodic writes.
   */
  private void saveCheckpoints(boolean closing) {
    for (TargetState ts : targets.values()) {
      List<SinkState> states;
      boolean removing;
      synchronized (ts) {
        states = new ArrayList<>(ts.bySink.values());
        removing = ts.removing;
      }
      for (SinkState st : states) {
        boolean sendTimes = closing && st.sendTimesChanged.get();
        if (st.dirty.getAndSet(false) || sendTimes) {
          saveNow(st, sendTimes);
        }
      }
      if (removing) {
        completeRemoval(ts);
      }
    }
  }

  /**
   * Writes what the sink acknowledged since the last write: the changed and removed keys as a
   * delta ({@link CheckpointStore#apply}), or with {@code whole} the complete state (on close, when
   * heartbeats refreshed send times of keys that did not otherwise change: one O(state) write per
   * graceful shutdown instead of one per heartbeat acknowledgement).
   */
  private void saveNow(SinkState st, boolean whole) {
    synchronized (st.saveLock) {
      if (st.detached) {
        return;
      }
      Set<String> keys = st.takeUnsaved();
      try {
        if (whole && st.waiting.isEmpty()) {
          st.sendTimesChanged.set(false);
          checkpoints.save(st.target, st.sink, Map.copyOf(st.acknowledged));
        } else if (whole) {
          // Entries kept for other shards are in the store, not in this state: a whole save would
          // drop them before their new owner took them over. Writing every own key as a change
          // leaves them as they are (also when their owner took them over meanwhile).
          st.sendTimesChanged.set(false);
          Set<String> removed = new HashSet<>(keys);
          removed.removeAll(st.acknowledged.keySet());
          checkpoints.apply(st.target, st.sink, Map.copyOf(st.acknowledged), removed);
        } else if (!keys.isEmpty()) {
          Map<String, ExportedEntry> changed = new HashMap<>();
          Set<String> removed = new HashSet<>();
          for (String key : keys) {
            ExportedEntry e = st.acknowledged.get(key);
            if (e == null) {
              removed.add(key);
            } else {
              changed.put(key, e);
            }
          }
          checkpoints.apply(st.target, st.sink, changed, removed);
        }
        if (checkpointFailing) {
          checkpointFailing = false;
          LOG.info("checkpoint writes work again");
        }
      } catch (RuntimeException e) {
        st.returnUnsaved(keys);
        st.dirty.set(true);
        if (whole) {
          st.sendTimesChanged.set(true);
        }
        if (!checkpointFailing) {
          checkpointFailing = true;
          LOG.warn("cannot save checkpoint of target {} sink {} (retrying; further failures are "
              + "logged at debug): {}", st.target, st.sink, e.toString());
        } else {
          LOG.debug("cannot save checkpoint of target {} sink {}: {}", st.target, st.sink,
              e.toString());
        }
      }
    }
  }

  private void completeRemoval(TargetState ts) {
    synchronized (ts) {
      if (!ts.removing || ts.discarded) {
        return;
      }
      for (SinkState st : ts.bySink.values()) {
        // Done once nothing of it is pending or in flight: tombstones are acknowledged, or were
        // rejected permanently (then waiting longer would never end). Without a running channel
        // (sink removed, exporter closing) only a fully acknowledged state may go: otherwise the
        // checkpoint is what makes the next run send the missing tombstones.
        DeliveryChannel channel = channels.get(st.sink);
        boolean done = channel != null ? !channel.holds(st) : st.acknowledged.isEmpty();
        if (!done) {
          return;
        }
      }
      for (SinkState st : ts.bySink.values()) {
        forget(st);
      }
      ts.bySink.clear();
      ts.discarded = true;
      targets.remove(ts.target, ts);
    }
  }

  /** For tests: runs one periodic checkpoint save now. */
  void checkpointTick() {
    saveCheckpoints(false);
  }

  /** For tests: the keys enqueued (dedupe state) for a (target, sink). */
  Set<String> enqueuedKeys(String target, String sink) {
    TargetState ts = targets.get(target);
    if (ts == null) {
      return Set.of();
    }
    synchronized (ts) {
      SinkState st = ts.bySink.get(sink);
      return st == null ? Set.of() : new HashSet<>(st.enqueued.keySet());
    }
  }

  /** For tests and the memory benchmark: the state of one target, or null. */
  TargetState targetState(String target) {
    return targets.get(target);
  }

  /** For tests: whether the exporter still holds state for a target. */
  boolean knowsTarget(String target) {
    return targets.containsKey(target);
  }
}
