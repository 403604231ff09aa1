package io.kollect.informers;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.dsl.Informable;
import io.fabric8.kubernetes.client.dsl.internal.AbstractWatchManager;
import io.fabric8.kubernetes.client.dsl.internal.BaseOperation;
import io.fabric8.kubernetes.client.dsl.internal.WatchHTTPManager;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.impl.DefaultSharedIndexInformer;
import io.fabric8.kubernetes.client.informers.impl.ListerWatcher;
import java.net.MalformedURLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Kollect's list and watch for one informer, in place of the one fabric8's {@code Informable}
 * builds (whose watch timeout, 5–10 min, is internal to its {@code Reflector}): lists in pages of
 * {@link InformerOptions#listPageSize()}, and watches under the {@link WatchLiveness} rule.
 *
 * <p>Watches are plain HTTP streaming requests (as client-go's), not WebSockets: abandoning a
 * silent HTTP/1.1 request resets and closes its connection at once, while closing a WebSocket
 * waits for a close handshake the dead peer never answers. They go through a client derived from
 * the operation's HTTP client (same connection pool, same authentication interceptors) that
 * carries the liveness interceptor. A watch the server ended at its timeout is re-opened at once,
 * as client-go's reflector does, not after fabric8's reconnect interval
 * ({@link WatchLiveness#reopenAtOnce}).
 */
final class LivenessListerWatcher
    implements ListerWatcher<GenericKubernetesResource, GenericKubernetesResourceList> {

  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(LivenessListerWatcher.class);
  private static final String INTERCEPTOR = "kollect-watch-liveness";

  private final BaseOperation<GenericKubernetesResource, GenericKubernetesResourceList, ?> operation;
  private final WatchLiveness liveness;
  private final HttpClient watchClient;
  private final long pageSize;
  /** Drops objects other shards own, {@code null} to keep all. */
  private final OwnedObjects owned;

  /**
   * A fabric8 informer (not started) over Kollect's list and watch of {@code informable}. A client
   * that is not fabric8's own implementation (a test double) gets fabric8's informer unchanged
   * (and unfiltered).
   *
   * @param owned the objects to keep ({@code null}: all)
   */
  @SuppressWarnings("unchecked")
  static SharedIndexInformer<GenericKubernetesResource> informer(
      Informable<GenericKubernetesResource> informable, WatchLiveness liveness, int pageSize,
      long resyncMillis, OwnedObjects owned) {
    if (!(informable instanceof BaseOperation<?, ?, ?> base)) {
      return informable.runnableInformer(resyncMillis);
    }
    var operation = (BaseOperation<GenericKubernetesResource, GenericKubernetesResourceList, ?>) base;
    // each informer its own chain: a list page's notifications run on one thread, not one
    // pool hand-over per object (ChainingExecutor)
    return new DefaultSharedIndexInformer<>(GenericKubernetesResource.class,
        new LivenessListerWatcher(operation, liveness, pageSize, owned), resyncMillis,
        new ChainingExecutor(operation.getOperationContext().getExecutor()));
  }

  LivenessListerWatcher(
      BaseOperation<GenericKubernetesResource, GenericKubernetesResourceList, ?> operation,
      WatchLiveness liveness, int pageSize, OwnedObjects owned) {
    this.operation = operation;
    this.owned = owned;
    this.liveness = liveness;
    this.pageSize = pageSize;
    this.watchClient = operation.getOperationContext().getHttpClient().newBuilder()
        .addOrReplaceInterceptor(INTERCEPTOR, liveness)
        .build();
  }

  @Override
  public CompletableFuture<GenericKubernetesResourceList> submitList(ListOptions listOptions) {
    // fabric8 already sets the page size (getLimit) and the continue token; the request carries
    // the client's request timeout
    CompletableFuture<GenericKubernetesResourceList> page =
        operation.submitList(listOptions).whenComplete((list, failure) -> {
          if (failure == null) {
            liveness.listed();
          } else {
            liveness.listFailed(failure);
          }
        });
    // other shards' objects leave with the page, before the reflector stores any of it
    return owned == null ? page : page.thenApply(owned::filter);
  }

  @Override
  public CompletableFuture<AbstractWatchManager<GenericKubernetesResource>> submitWatch(
      ListOptions options, Watcher<GenericKubernetesResource> watcher) {
    options.setWatch(true);
    options.setTimeoutSeconds(liveness.serverTimeoutSeconds());
    Config config = operation.getConfig();
    try {
      // the manager re-opens each ended request from the last resourceVersion it saw, with the
      // same options; fabric8's Reflector relists only on 410 Gone
      WatchHTTPManager<GenericKubernetesResource, GenericKubernetesResourceList> watch =
          new WatchHTTPManager<>(watchClient, operation, options,
              // liveness sees every event (a shard's quiet watch is not a dead one); the
              // reflector only the owned objects'
              liveness.observe(owned == null ? watcher : owned.watcher(watcher)),
              config.getWatchReconnectInterval(), config.getWatchReconnectLimit()) {
            @Override
            protected CompletableFuture<Void> schedule(Runnable command, long delay,
                TimeUnit unit) {
              // fabric8 schedules its re-opens (and its fail-safe after a close) here; a watch
              // the server ended on schedule is re-opened at once (see reopenAtOnce)
              if (liveness.reopenAtOnce()) {
                // fabric8 has just logged (debug) a re-open after its interval; say it is not so
                LOG.debug("Watch of {} ended by the server on schedule: re-opened at once, not in"
                    + " {} ms", operation.getApiEndpointPath(), unit.toMillis(delay));
                return super.schedule(command, 0, unit);
              }
              return super.schedule(command, delay, unit);
            }
          };
      liveness.watching(watch);
      return CompletableFuture.completedFuture(watch);
    } catch (MalformedURLException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public Long getLimit() {
    return pageSize;
  }

  @Override
  public int getWatchReconnectInterval() {
    return operation.getWatchReconnectInterval();
  }

  @Override
  public String getApiEndpointPath() {
    return operation.getApiEndpointPath();
  }

  @Override
  public Config getConfig() {
    return operation.getConfig();
  }
}
