package io.kollect.core;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.informers.InformerOptions;
import io.kollect.informers.InformerRegistry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The other clusters the engine has open, counted by the units that read them: a cluster opens
 * when its first unit needs it and closes (watches closed, client released, listeners told
 * {@link ClusterHealthListener#onReleased}) when its last unit goes; {@link #close} closes all.
 * Also watches every open cluster's health (and the engine's own), once a second: a change is
 * told to the listeners and to the engine, which re-runs the cluster's units.
 *
 * <p>Threads: one health thread (started with the engine) and one thread that reads server
 * versions, which exists only while a read is under way; none per cluster beyond its
 * registry's planner.
 */
final class OpenClusters implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(OpenClusters.class);

  private final String localName;
  private final ClusterConnections source;
  private final InformerOptions baseOptions;
  private final BiFunction<KubernetesClient, InformerOptions, InformerRegistry> registries;
  private final Consumer<String> healthChanged;
  private final Map<String, Opened> open = new HashMap<>();
  private final ClusterConnection local;
  private final List<ClusterHealthListener> listeners = new CopyOnWriteArrayList<>();
  /** What listeners were last told per cluster (without the figures that move constantly). */
  private final Map<String, ClusterHealth> told = new ConcurrentHashMap<>();
  private final ThreadPoolExecutor probes;
  private final ScheduledExecutorService ticker;
  private boolean started;
  private boolean closed;

  private static final class Opened {
    final ClusterConnection connection;
    int units;

    Opened(ClusterConnection connection) {
      this.connection = connection;
    }
  }

  /**
   * @param localName the engine's own cluster's name
   * @param localClient the engine's own client
   * @param localRegistry the engine's own registry
   * @param source where other clusters' clients come from
   * @param baseOptions informer settings; each cluster's are these named after it, with its
   *     metrics {@linkplain io.kollect.informers.InformerMetrics#forCluster tagged}
   * @param registries builds a cluster's registry
   * @param healthChanged told the name of a cluster whose health state changed
   */
  OpenClusters(String localName, KubernetesClient localClient, InformerRegistry localRegistry,
      ClusterConnections source, InformerOptions baseOptions,
      BiFunction<KubernetesClient, InformerOptions, InformerRegistry> registries,
      Consumer<String> healthChanged) {
    this.localName = localName;
    this.source = Objects.requireNonNull(source, "clusterConnections");
    this.baseOptions = baseOptions;
    this.registries = registries;
    this.healthChanged = healthChanged;
    this.probes = new ThreadPoolExecutor(0, 1, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
        r -> {
          Thread t = new Thread(r, "kollect-cluster-version");
          t.setDaemon(true);
          return t;
        });
    this.ticker = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "kollect-cluster-health");
      t.setDaemon(true);
      return t;
    });
    this.local = localRegistry == null ? null
        : ClusterConnection.local(localName, localClient, localRegistry, probes);
  }

  /** The engine's own cluster's name. */
  String localName() {
    return localName;
  }

  /** Starts watching health (idempotent). */
  synchronized void start() {
    if (started || closed) {
      return;
    }
    started = true;
    ticker.scheduleWithFixedDelay(this::checkHealth, 1, 1, TimeUnit.SECONDS);
  }

  void addListener(ClusterHealthListener listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  /**
   * One more unit reads {@code cluster}: opens it for the first (a failure to open is kept on
   * the connection and reported, not thrown).
   */
  synchronized ClusterConnection acquire(String cluster) {
    if (closed) {
      throw new IllegalStateException("engine is closed");
    }
    Opened o = open.get(cluster);
    if (o == null) {
      InformerOptions options = baseOptions.withCluster(cluster)
          .withMetrics(baseOptions.metrics().forCluster(cluster));
      o = new Opened(ClusterConnection.remote(cluster, source, registries, options, probes));
      o.connection.open();
      open.put(cluster, o);
    }
    o.units++;
    return o.connection;
  }

  /** A unit stopped reading {@code cluster}: the last one closes it. */
  void release(String cluster) {
    ClusterConnection closing = null;
    synchronized (this) {
      Opened o = open.get(cluster);
      if (o == null) {
        return;
      }
      if (--o.units <= 0) {
        open.remove(cluster);
        closing = o.connection;
      }
    }
    if (closing != null) {
      closing.close();
      told.remove(cluster);
      LOG.info("Released cluster {}: no target reads it any more", cluster);
      for (ClusterHealthListener l : listeners) {
        try {
          l.onReleased(cluster);
        } catch (RuntimeException e) {
          LOG.warn("Cluster health listener failed on the release of {}", cluster, e);
        }
      }
    }
  }

  /**
   * The cluster's credentials or address changed: a new client and registry (a cluster that
   * could not be opened is tried again). Returns whether the cluster is open (some unit reads
   * it).
   */
  boolean changed(String cluster) {
    ClusterConnection c;
    synchronized (this) {
      Opened o = open.get(cluster);
      if (o == null) {
        return false;
      }
      c = o.connection;
    }
    c.reopen();
    return true;
  }

  /** How many units read {@code cluster} (0 when it is not open). */
  synchronized int units(String cluster) {
    Opened o = open.get(cluster);
    return o == null ? 0 : o.units;
  }

  Optional<ClusterHealth> health(String cluster) {
    ClusterConnection c = connection(cluster);
    return c == null ? Optional.empty() : c.health();
  }

  /** The health of every open cluster, the engine's own first, then by name. */
  List<ClusterHealth> health() {
    List<ClusterHealth> out = new ArrayList<>();
    if (local != null) {
      local.health().ifPresent(out::add);
    }
    List<ClusterConnection> others;
    synchronized (this) {
      others = open.values().stream().map(o -> o.connection)
          .sorted((a, b) -> a.name.compareTo(b.name)).toList();
    }
    for (ClusterConnection c : others) {
      c.health().ifPresent(out::add);
    }
    return out;
  }

  private ClusterConnection connection(String cluster) {
    if (local != null && localName.equals(cluster)) {
      return local;
    }
    synchronized (this) {
      Opened o = open.get(cluster);
      return o == null ? null : o.connection;
    }
  }

  /** Health thread, every second: tells what changed, and reads versions still missing. */
  private void checkHealth() {
    try {
      List<ClusterConnection> all = new ArrayList<>();
      if (local != null) {
        all.add(local);
      }
      synchronized (this) {
        open.values().forEach(o -> all.add(o.connection));
      }
      for (ClusterConnection c : all) {
        c.probeIfDue();
        Optional<ClusterHealth> h = c.health();
        if (h.isEmpty()) {
          continue;
        }
        ClusterHealth comparable = withoutFigures(h.get());
        ClusterHealth before = told.put(c.name, comparable);
        if (comparable.equals(before)) {
          continue;
        }
        if (before == null || before.state() != comparable.state()) {
          LOG.info("Cluster {} is {} ({}): {}", c.name, comparable.state(), comparable.reason(),
              comparable.message());
          healthChanged.accept(c.name);
        }
        for (ClusterHealthListener l : listeners) {
          try {
            l.onHealth(h.get());
          } catch (RuntimeException e) {
            LOG.warn("Cluster health listener failed for {}", c.name, e);
          }
        }
      }
    } catch (RuntimeException e) {
      LOG.warn("Checking cluster health failed; trying again in 1 s", e);
    }
  }

  /** The health without what moves on its own (open watches, last contact). */
  private static ClusterHealth withoutFigures(ClusterHealth h) {
    return new ClusterHealth(h.cluster(), h.state(), h.reason(), h.message(), h.serverVersion(),
        h.watchedTypes(), 0, null);
  }

  /** Closes every open cluster and stops watching health. */
  @Override
  public void close() {
    List<ClusterConnection> closing;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      closing = open.values().stream().map(o -> o.connection).toList();
      open.clear();
    }
    ticker.shutdownNow();
    probes.shutdownNow();
    for (ClusterConnection c : closing) {
      try {
        c.close();
      } catch (RuntimeException e) {
        LOG.warn("Closing cluster {} failed", c.name, e);
      }
    }
  }
}
