package io.kollect.informers;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.dsl.Informable;
import io.fabric8.kubernetes.client.dsl.internal.AbstractWatchManager;
import io.fabric8.kubernetes.client.dsl.internal.BaseOperation;
import io.fabric8.kubernetes.client.dsl.internal.OperationContext;
import io.fabric8.kubernetes.client.dsl.internal.OperationSupport;
import io.fabric8.kubernetes.client.dsl.internal.WatchHTTPManager;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.impl.DefaultSharedIndexInformer;
import io.fabric8.kubernetes.client.informers.impl.ListerWatcher;
import io.fabric8.kubernetes.client.utils.ApiVersionUtil;
import java.net.MalformedURLException;
import java.util.List;
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
 *
 * <p>List pages are decoded by a {@link ProjectedListReader}: only what the informer's projection
 * keeps (fabric8's own decoding when the client's serialization is not fabric8's default one).
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
  /** Decodes list pages; {@code null}: fabric8 decodes them. */
  private final ProjectedListReader pages;

  /**
   * A fabric8 informer (not started) over Kollect's list and watch of {@code informable}. A client
   * that is not fabric8's own implementation (a test double) gets fabric8's informer unchanged
   * (and unfiltered).
   *
   * @param owned the objects to keep ({@code null}: all)
   * @param projection what the informer's store keeps of each object
   */
  @SuppressWarnings("unchecked")
  static SharedIndexInformer<GenericKubernetesResource> informer(
      Informable<GenericKubernetesResource> informable, WatchLiveness liveness, int pageSize,
      long resyncMillis, OwnedObjects owned, ObjectProjection projection) {
    if (!(informable instanceof BaseOperation<?, ?, ?> base)) {
      return informable.runnableInformer(resyncMillis);
    }
    var operation = (BaseOperation<GenericKubernetesResource, GenericKubernetesResourceList, ?>) base;
    // each informer its own chain: a list page's notifications run on one thread, not one
    // pool hand-over per object (ChainingExecutor)
    return new DefaultSharedIndexInformer<>(GenericKubernetesResource.class,
        new LivenessListerWatcher(operation, liveness, pageSize, owned, projection), resyncMillis,
        new ChainingExecutor(operation.getOperationContext().getExecutor()));
  }

  LivenessListerWatcher(
      BaseOperation<GenericKubernetesResource, GenericKubernetesResourceList, ?> operation,
      WatchLiveness liveness, int pageSize, OwnedObjects owned, ObjectProjection projection) {
    this.operation = operation;
    this.owned = owned;
    this.pages = ProjectedListReader.of(projection, operation.getKubernetesSerialization(),
        ApiVersionUtil.joinApiGroupAndVersion(operation.getAPIGroupName(),
            operation.getAPIGroupVersion()), operation.getKind());
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
        (pages == null ? operation.submitList(listOptions) : listPage(listOptions))
        .whenComplete((list, failure) -> {
          if (failure == null) {
            liveness.listed();
          } else {
            liveness.listFailed(failure);
          }
        });
    // other shards' objects leave with the page, before the reflector stores any of it
    return owned == null ? page : page.thenApply(owned::filter);
  }

  /**
   * One page, as fabric8's {@code submitList} requests it (the operation's selectors, the options
   * as query parameters, the request timeout), logs the server's warnings and fails (its
   * exceptions, status and code), decoded by {@link #pages}.
   */
  private CompletableFuture<GenericKubernetesResourceList> listPage(ListOptions options) {
    OperationContext context = operation.getOperationContext();
    options.setWatch(null);
    if (context.getFieldQueryParam() != null) {
      options.setFieldSelector(context.getFieldQueryParam());
    }
    if (context.getLabelQueryParam() != null) {
      options.setLabelSelector(context.getLabelQueryParam());
    }
    if (context.getShardSelector() != null) {
      options.setShardSelector(context.getShardSelector());
    }
    if (context.getResourceVersion() != null) {
      options.setResourceVersion(context.getResourceVersion());
    }
    HttpClient client = context.getHttpClient();
    HttpRequest request;
    try {
      request = client.newHttpRequestBuilder()
          .url(operation.appendListOptionParams(operation.getNamespacedUrl(), options))
          .timeout(operation.getRequestConfig().getRequestTimeout(), TimeUnit.MILLISECONDS)
          .build();
    } catch (MalformedURLException e) {
      return CompletableFuture.failedFuture(KubernetesClientException.launderThrowable(e));
    }
    return client.sendAsync(request, byte[].class).thenApply(response -> {
      List<String> warnings = response.headers("Warning");
      if (warnings != null && !warnings.isEmpty()) {
        // as fabric8 logs them for an operation that does not ask for field validation
        LOG.debug("Received warning(s) from request {}: {}", request.uri(), warnings);
      }
      if (!response.isSuccessful()) {
        throw OperationSupport.requestFailure(request,
            OperationSupport.createStatus(response, operation.getKubernetesSerialization()));
      }
      try {
        return pages.read(response.body());
      } catch (RuntimeException e) {
        throw OperationSupport.requestException(request, e);
      }
    });
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
