package io.kollect.operator.leader;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs fabric8's {@code LeaderElector} on a Lease and reports leadership changes. A lost lease
 * does not end the process: the instance becomes a standby again and keeps competing, since its
 * caches stay warm and a re-acquire costs nothing.
 */
public final class LeaderElection implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LeaderElection.class);

  private final KubernetesClient client;
  private final LeaderElectionSettings settings;
  private final Consumer<Boolean> onLeadership;
  private final Consumer<String> onLeaderObserved;
  private volatile CompletableFuture<?> running;
  private volatile boolean closed;

  public LeaderElection(KubernetesClient client, LeaderElectionSettings settings,
      Consumer<Boolean> onLeadership) {
    this(client, settings, onLeadership, leader -> { });
  }

  /**
   * @param onLeaderObserved told the identity of the leader whenever it is observed to change
   *     (this instance or another): from then on the leadership state is known
   */
  public LeaderElection(KubernetesClient client, LeaderElectionSettings settings,
      Consumer<Boolean> onLeadership, Consumer<String> onLeaderObserved) {
    this.client = client;
    this.settings = settings;
    this.onLeadership = onLeadership;
    this.onLeaderObserved = onLeaderObserved;
  }

  synchronized void start() {
    if (closed) {
      return;
    }
    var config = new LeaderElectionConfigBuilder()
        .withName(settings.id())
        .withLock(new LeaseLock(settings.namespace(), settings.id(), settings.identity()))
        .withLeaseDuration(settings.leaseDuration())
        .withRenewDeadline(settings.renewDeadline())
        .withRetryPeriod(settings.retryPeriod())
        .withReleaseOnCancel(true)
        .withLeaderCallbacks(new LeaderCallbacks(
            () -> {
              log.info("became the leader (lease {}/{}, identity {})", settings.namespace(),
                  settings.id(), settings.identity());
              onLeadership.accept(true);
            },
            () -> {
              log.info("stopped leading (lease {}/{})", settings.namespace(), settings.id());
              onLeadership.accept(false);
            },
            leader -> {
              log.info("leader is now {}", leader);
              onLeaderObserved.accept(leader);
            }))
        .build();
    CompletableFuture<?> future = client.leaderElector().withConfig(config).build().start();
    running = future;
    future.whenComplete((ok, error) -> {
      if (error != null && !(error instanceof java.util.concurrent.CancellationException)) {
        log.warn("leader election ended: {}", error.toString());
      }
      if (!closed) {
        // Lost the lease (or the election loop failed): compete again as a standby.
        start();
      }
    });
  }

  /** Stops competing and releases the lease if held, so a standby takes over at once. */
  @Override
  public synchronized void close() {
    closed = true;
    CompletableFuture<?> future = running;
    if (future != null) {
      future.cancel(true);
    }
  }
}
