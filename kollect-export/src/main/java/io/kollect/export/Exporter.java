package io.kollect.export;

import io.kollect.extract.Op;
import io.kollect.extract.Record;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BiPredicate;

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
 *
 * <p>Inside, this class holds the public API, the targets' states and their locking; it hands the
 * work to package-private units: {@code SinkDiff} (what a sink must be handed: changed records,
 * tombstones, sequences), {@code DeliveryChannel} (one sink's lanes, threads and retries), {@code
 * Heartbeats} (the periodic re-send), {@code CheckpointBook} (loading, saving and handing over
 * checkpoints) and {@code ConfiguredSinks} (the sinks by name, suspension).
 */
public final class Exporter implements AutoCloseable {

  private final ExportMetrics metrics;
  private final Clock clock;
  private final Duration closeTimeout;
  private final ConcurrentHashMap<String, TargetState> targets = new ConcurrentHashMap<>();
  private final ConfiguredSinks sinks = new ConfiguredSinks();
  /** Load, save, peer takeover and disowned keys of each (target, sink)'s checkpoint. */
  private final CheckpointBook book;
  private final SinkDiff diff;
  private final Heartbeats heartbeats;
  private final ScheduledThreadPoolExecutor scheduler;
  private final Object sinkLock = new Object();
  private volatile boolean closed;

  private Exporter(Builder b) {
    this.metrics = new SafeMetrics(b.metrics);
    this.clock = b.clock;
    this.closeTimeout = b.closeTimeout;
    this.scheduler = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "kollect-export-scheduler");
      t.setDaemon(true);
      return t;
    });
    scheduler.setRemoveOnCancelPolicy(true);
    scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    SequenceClock sequences = new SequenceClock(b.clock);
    this.book = new CheckpointBook(b.checkpointStore, sequences, b.ownedKeys);
    this.diff = new SinkDiff(sinks, book, sequences, clock);
    this.heartbeats = new Heartbeats(scheduler, targets.values(), sinks, clock, sequences);
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
      DeliveryChannel old = sinks.put(channel);
      heartbeats.stop(name);
      if (old != null) {
        old.stop(Duration.ZERO);
      }
      channel.start();
      for (TargetState ts : targets.values()) {
        synchronized (ts) {
          if (!ts.discarded && ts.requestedSinks.contains(name)) {
            diff.sync(ts, name, old != null);
          }
        }
      }
      heartbeats.start(channel);
    }
  }

  /**
   * Stops delivering to a sink (pending records are drained for up to the close timeout) and
   * closes it. Its checkpoints are kept, so adding it again later only sends what changed.
   */
  public void removeSink(String name) {
    synchronized (sinkLock) {
      DeliveryChannel channel = sinks.remove(name);
      if (channel == null) {
        return;
      }
      heartbeats.stop(name);
      channel.stop(closeTimeout);
      for (TargetState ts : targets.values()) {
        synchronized (ts) {
          SinkState st = ts.bySink.remove(name);
          if (st != null) {
            book.saveAndDetach(st);
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
        sinks.suspend(name);
        return;
      }
      if (!sinks.resume(name)) {
        return;
      }
      for (TargetState ts : targets.values()) {
        synchronized (ts) {
          if (!ts.discarded && ts.requestedSinks.contains(name)) {
            diff.sync(ts, name, false);
          }
        }
      }
    }
  }

  /** Whether the sink is suspended ({@link #setSinkSuspended}). */
  public boolean isSinkSuspended(String name) {
    return sinks.isSuspended(name);
  }

  /** Names of the sinks currently configured, sorted. */
  public SortedSet<String> sinkNames() {
    return Collections.unmodifiableSortedSet(new TreeSet<>(sinks.names()));
  }

  /** Unsent records buffered for a sink (coalesced: at most one per object key and target). */
  public int queueDepth(String sinkName) {
    DeliveryChannel channel = sinks.get(sinkName);
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
    DeliveryChannel channel = sinks.get(sink);
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
    Map<ExportKey, Record> current = index(target, desired);
    Set<String> sinks = Set.copyOf(sinkNames);
    underTargetLock(target, ts -> diff.converge(ts, sinks, current));
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
    Map<ExportKey, Record> changed = index(target, upserts);
    List<ExportKey> deleted = new ArrayList<>(deletedKeys.size());
    for (String key : deletedKeys) {
      deleted.add(ExportKey.parse(key));
    }
    Set<String> sinks = Set.copyOf(sinkNames);
    underTargetLock(target, ts -> diff.update(ts, sinks, changed, deleted));
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
        for (String sink : sinks.names()) {
          book.delete(target, sink);
        }
        return;
      }
      synchronized (ts) {
        if (ts.discarded) {
          continue;
        }
        if (sendTombstones) {
          Set<String> named = ts.requestedSinks.isEmpty() && ts.bySink.isEmpty()
              ? Set.copyOf(sinks.names())
              : ts.requestedSinks;
          diff.converge(ts, named, Map.of());
          diff.tombstoneWaiting(ts);
          ts.removing = true;
        } else {
          for (SinkState st : ts.bySink.values()) {
            diff.forget(st);
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
   * Waits until every sink's buffer is empty and no batch is in flight.
   *
   * @return false when {@code timeout} passed first (e.g. a sink is down)
   */
  public boolean awaitIdle(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      for (DeliveryChannel channel : sinks.all()) {
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
    for (DeliveryChannel channel : sinks.all()) {
      long left = Math.max(0, deadline - System.nanoTime());
      channel.stop(Duration.ofNanos(left));
    }
    sinks.clear();
    saveCheckpoints(true);
  }
  // ---------------------------------------------------------------------------------------------

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("exporter is closed");
    }
  }

  private static Map<ExportKey, Record> index(String target, Collection<Record> desired) {
    Map<ExportKey, Record> current = new LinkedHashMap<>(Math.max(16, desired.size() * 4 / 3 + 1));
    for (Record r : desired) {
      Objects.requireNonNull(r, "desired record");
      if (r.op() != Op.UPSERT) {
        throw new IllegalArgumentException("desired record " + r.key() + " of target " + target
            + ": op must be UPSERT, got " + r.op());
      }
      if (r.hash() == null) {
        throw new IllegalArgumentException("desired record " + r.key() + " of target " + target
            + ": contentHash must be set");
      }
      current.put(ExportKey.of(r), r);
    }
    return current;
  }

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
        book.saveIfChanged(st, closing);
      }
      if (removing) {
        completeRemoval(ts);
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
        DeliveryChannel channel = sinks.get(st.sink);
        boolean done = channel != null ? !channel.holds(st) : st.acknowledged.isEmpty();
        if (!done) {
          return;
        }
      }
      for (SinkState st : ts.bySink.values()) {
        diff.forget(st);
      }
      ts.bySink.clear();
      ts.discarded = true;
      targets.remove(ts.target, ts);
    }
  }

  /** For tests: runs one heartbeat tick of a sink now, as its schedule would. */
  void heartbeatTick(String sink, int slice) {
    DeliveryChannel channel = sinks.get(sink);
    if (channel != null) {
      heartbeats.tick(channel, slice);
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
      Set<String> keys = new HashSet<>();
      if (st != null) {
        st.forEachEnqueued((k, e) -> keys.add(k.toString()));
      }
      return keys;
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
