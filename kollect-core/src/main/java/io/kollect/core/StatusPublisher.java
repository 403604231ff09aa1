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
 * <p>A change of {@code lastExport} alone (every exported object change causes one) is reported
 * at most once per {@code lastExportNotifyInterval}, so a busy target does not turn every object
 * change into a status write; the target is re-queued for when the interval is over, so the
 * latest time is reported. A standby (export off) stores statuses and tells nobody.
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
  private final BooleanSupplier exportEnabled;

  StatusPublisher(WorkQueue<TargetId> queue, Duration lastExportNotifyInterval,
      BooleanSupplier exportEnabled) {
    this.queue = queue;
    this.lastExportNotifyNanos = lastExportNotifyInterval.toNanos();
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
      boolean onlyLastExport = rt.notified != null && StatusBuilder.withoutLastExport(status)
          .equals(StatusBuilder.withoutLastExport(rt.notified));
      long since = now - rt.notifiedAtNanos;
      if (onlyLastExport && since < lastExportNotifyNanos) {
        queue.addAfter(rt.id, Duration.ofNanos(lastExportNotifyNanos - since));
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
