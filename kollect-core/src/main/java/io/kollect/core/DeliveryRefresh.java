package io.kollect.core;

import io.kollect.export.DeliveryStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings every target's delivery figures up to date between reconciles: acknowledgements arrive
 * after the reconcile that handed the records over. A change that decides conditions (a sink
 * starts or stops failing, records are refused) re-enqueues the target so its conditions are
 * recomputed by a pass; a change of figures alone (last acknowledgement, pending) is published as
 * a copy of the status, throttled like {@code lastExport}. Costs O(targets × sinks) per run, on
 * one {@code kollect-delivery-status} thread.
 */
final class DeliveryRefresh implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(DeliveryRefresh.class);

  /**
   * What a refresh reads and where it reports.
   *
   * @param targets the engine's targets now
   * @param reconciler gives a target's deliveries now
   * @param queue where a target whose conditions change is re-enqueued
   * @param publisher where a copy with fresh figures is published
   * @param active whether to refresh at all (exporting, not closed)
   */
  record Parts(Supplier<Collection<TargetRuntime>> targets, TargetReconciler reconciler,
      WorkQueue<TargetId> queue, StatusPublisher publisher, BooleanSupplier active) {}

  private final Parts parts;
  private final Duration interval;
  private final ScheduledExecutorService executor =
      Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "kollect-delivery-status");
        t.setDaemon(true);
        return t;
      });

  DeliveryRefresh(Parts parts, Duration interval) {
    this.parts = parts;
    this.interval = interval;
  }

  void start() {
    long every = interval.toMillis();
    executor.scheduleWithFixedDelay(this::refresh, every, every, TimeUnit.MILLISECONDS);
  }

  private void refresh() {
    try {
      if (!parts.active().getAsBoolean()) {
        return;
      }
      Instant now = Instant.now();
      for (TargetRuntime rt : parts.targets().get()) {
        TargetStatus st;
        Set<String> exported;
        synchronized (rt) {
          if (rt.removed || rt.status == null) {
            continue;
          }
          st = rt.status;
          exported = rt.exportedSinks;
        }
        Map<String, DeliveryStatus> fresh = parts.reconciler().deliveries(rt, exported);
        if (!DeliveryHealth.material(fresh, now).equals(
            DeliveryHealth.material(st.deliveries(), now))) {
          parts.queue().add(rt.id);
        } else if (!fresh.equals(st.deliveries())) {
          parts.publisher().publish(rt, st.withDeliveries(fresh), st);
        }
      }
    } catch (RuntimeException e) {
      LOG.warn("refreshing delivery status failed; retrying in {}", interval, e);
    }
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
