package io.kollect.core;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last step of the status pipeline: stores a target's status and tells the {@link
 * TargetStatusListener}s, the one place they are told anything (a status, a removal).
 *
 * <p>Changes of figures alone are held back, so that a status write follows a change of the
 * target, not the passing of time:
 * <ul>
 *   <li>a change of {@code lastExport} (every exported object change causes one, with the delivery
 *       figures that follow it) is reported at most once per {@code lastExportNotifyInterval}, so a
 *       busy target does not turn every object change into a status write;
 *   <li>a change of delivery figures alone (time of the last acknowledgement, pending count: every
 *       acknowledgement and heartbeat moves them) is reported at most once per {@code
 *       figureNotifyInterval} plus a share of it fixed per target (spreading targets that started
 *       together), minutes: metrics carry these figures live, so a quiet minute costs status
 *       writes for the targets whose objects, scope or health changed, and for a steady share of
 *       the others.
 * </ul>
 * A held-back target is re-queued for when its interval is over, so the latest figures are
 * reported in the end. A standby (export off) stores statuses and tells nobody.
 *
 * <p>It owns {@link TargetRuntime#status}, {@link TargetRuntime#notified} and {@link
 * TargetRuntime#notifiedAtNanos} of a target (its cluster units' statuses are the reconciler's):
 * all three are written here, under the target's monitor.
 */
final class StatusPublisher {

  private static final Logger LOG = LoggerFactory.getLogger(StatusPublisher.class);

  private final List<TargetStatusListener> listeners = new CopyOnWriteArrayList<>();
  private final WorkQueue<TargetId> queue;
  private final long lastExportNotifyNanos;
  private final long figureNotifyNanos;
  private final BooleanSupplier exportEnabled;

  StatusPublisher(WorkQueue<TargetId> queue, Duration lastExportNotifyInterval,
      Duration figureNotifyInterval, BooleanSupplier exportEnabled) {
    this.queue = queue;
    this.lastExportNotifyNanos = lastExportNotifyInterval.toNanos();
    this.figureNotifyNanos = figureNotifyInterval.toNanos();
    this.exportEnabled = exportEnabled;
  }

  void addListener(TargetStatusListener listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  /** Stores the target's new status and tells listeners when it changed (throttled, above). */
  void publish(TargetRuntime rt, TargetStatus status) {
    publish(rt, status, null);
  }

  /**
   * As {@link #publish(TargetRuntime, TargetStatus)}, but only while the target's status is still
   * {@code expected} (when given): a refresh never overwrites a newer reconcile's status.
   */
  void publish(TargetRuntime rt, TargetStatus status, TargetStatus expected) {
    synchronized (rt) {
      if (rt.removed || (expected != null && rt.status != expected)) {
        return;
      }
      rt.status = status;
      if (!exportEnabled.getAsBoolean() || status.equals(rt.notified)) {
        return;
      }
      long now = System.nanoTime();
      long holdBack = holdBackNanos(rt.notified, status);
      long since = now - rt.notifiedAtNanos;
      if (since < holdBack) {
        queue.addAfter(rt.id, Duration.ofNanos(holdBack - since));
        return;
      }
      rt.notified = status;
      rt.notifiedAtNanos = now;
    }
    for (TargetStatusListener l : listeners) {
      try {
        l.onStatus(status);
      } catch (RuntimeException e) {
        LOG.warn("status listener failed for {}", status.id(), e);
      }
    }
  }

  /**
   * How long after the last report {@code status} may be reported, given what was reported last:
   * 0 for a change that is more than figures, the {@code lastExport} interval when records were
   * exported since, the figure interval when only delivery figures moved.
   */
  private long holdBackNanos(TargetStatus notified, TargetStatus status) {
    if (notified == null || !StatusBuilder.withoutLastExport(status)
        .equals(StatusBuilder.withoutLastExport(notified))) {
      return 0;
    }
    return Objects.equals(status.lastExport(), notified.lastExport())
        ? figureHoldBackNanos(status.id()) : lastExportNotifyNanos;
  }

  /**
   * The figure interval plus up to half of it again, by the target's id: targets that started
   * together would otherwise all report their figures in the same minute of every interval (1,000
   * status writes in one minute of five, with 1,000 targets), instead of a steady share of them.
   */
  long figureHoldBackNanos(TargetId id) {
    long spread = figureNotifyNanos / 2;
    return figureNotifyNanos + (spread == 0 ? 0
        : Math.floorMod(FIGURE_SPREAD_SEED * id.hashCode(), 1L << 20) * (spread >> 20));
  }

  /** An odd multiplier that scatters similar ids' hash codes across the spread. */
  private static final long FIGURE_SPREAD_SEED = 0x9E3779B97F4A7C15L;

  /** Forgets what listeners were told: the next status is reported afresh (export turned on). */
  void forgetNotified(TargetRuntime rt) {
    synchronized (rt) {
      rt.notified = null;
    }
  }

  /** Tells listeners the target is gone. */
  void removed(TargetId id) {
    for (TargetStatusListener l : listeners) {
      try {
        l.onRemoved(id);
      } catch (RuntimeException e) {
        LOG.warn("status listener failed on removal of {}", id, e);
      }
    }
  }
}
