package io.kollect.operator.cluster;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory;
import io.kollect.operator.KubeClients;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.file.FileSystemOptions;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Builds the clients of remote clusters on one shared stack, so a cluster costs its connections
 * and caches, not a client stack of its own.
 *
 * <p>A fabric8 client built the default way brings its own Vert.x instance (event loops, a
 * worker pool, timers) and its own executor for informer callbacks; closing the client closes
 * them. Fifty clusters would be fifty of each. Here every client shares one Vert.x instance
 * (given to fabric8's {@link Vertx5HttpClientFactory}, which then never closes it with a client)
 * and one cached executor whose idle threads end after a minute, so an idle cluster costs no
 * thread of its own; they also share one {@link KubernetesSerialization} (an object mapper with
 * the model's type registry, which a default client builds for itself). {@link #close} ends both, after the clients are closed.
 *
 * <p>Every client gets fabric8's HTTP logging replaced by nothing ({@link KubeClients#quiet}), so
 * no log level ever shows a request's {@code Authorization} header or a response body, and the
 * same client-side rate limit as the operator's own client.
 */
public final class RemoteClients implements AutoCloseable {

  private final Vertx vertx;
  private final Vertx5HttpClientFactory factory;
  private final ExecutorService executor;
  /**
   * One object mapper (with the model's type registry) for every client: it is not small. The
   * operator's own client's mapping ({@link KubeClients#serialization}).
   */
  private final KubernetesSerialization serialization = KubeClients.serialization();
  private final double qps;
  private final int burst;

  public RemoteClients(double qps, int burst) {
    this.qps = qps;
    this.burst = burst;
    this.vertx = newVertx();
    this.factory = new KubeClients.GzipClientFactory(vertx);
    AtomicInteger n = new AtomicInteger();
    this.executor = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS,
        new SynchronousQueue<>(), r -> {
          Thread t = new Thread(r, "kollect-remote-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
  }

  /** As fabric8 makes its own instance, with small pools shared by every remote cluster. */
  private static Vertx newVertx() {
    String property = "vertx.disableDnsResolver";
    String before = System.getProperty(property);
    System.setProperty(property, "true");
    try {
      // Vert.x's internal blocking pool (TLS set-up of new connections) and worker pool keep
      // their threads once started: bounded small here, or the first clusters' connections
      // would leave 20 idle threads each behind.
      return Vertx.vertx(new VertxOptions()
          .setEventLoopPoolSize(2)
          .setInternalBlockingPoolSize(2)
          .setWorkerPoolSize(2)
          .setUseDaemonThread(true)
          .setFileSystemOptions(new FileSystemOptions().setFileCachingEnabled(false)
              .setClassPathResolvingEnabled(false)));
    } finally {
      if (before == null) {
        System.clearProperty(property);
      } else {
        System.setProperty(property, before);
      }
    }
  }

  /** A client of {@code config} on the shared stack; closing it leaves the stack running. */
  KubernetesClient client(Config config) {
    KubeClients.RateLimit limit = new KubeClients.RateLimit(qps, burst);
    return new KubernetesClientBuilder()
        .withConfig(config)
        .withHttpClientFactory(factory)
        .withTaskExecutor(executor)
        .withKubernetesSerialization(serialization)
        .withHttpClientBuilderConsumer(b -> KubeClients.quiet(b)
            .addOrReplaceInterceptor("kollect-rate-limit", limit))
        .build();
  }

  @Override
  public void close() {
    executor.shutdownNow();
    vertx.close();
  }
}
