package io.kollect.core;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kollect.informers.ConnectionHealth;
import io.kollect.informers.InformerLease;
import io.kollect.informers.InformerOptions;
import io.kollect.informers.InformerRegistry;
import io.kollect.informers.LeaseListener;
import io.kollect.informers.LeaseRequest;
import io.kollect.informers.ResourceType;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's connection to one cluster: a client from {@link ClusterConnections}, one {@link
 * InformerRegistry} over it shared by every unit reading the cluster (so API load is O(types)),
 * the server version read once per client, and the health derived from them.
 *
 * <p><b>Generations.</b> Each client and its registry form a {@link Link}. Units attach to the
 * current link when they take leases on it and detach when they leave or move on; {@link
 * #reopen} (credentials rotated) makes a new current link, and an old link is closed (its
 * registry stopped, its client released) only when its last unit has detached. A unit moves at
 * its next pass, under its target's monitor, so no pass ever reads a registry that is being
 * closed under it (a closed registry reads empty, which a pass would take for deletions).
 *
 * <p>The engine's own cluster is a connection too ({@link #local}), for its health only: it
 * never opens, reopens or closes.
 *
 * <p>Thread-safety: link bookkeeping under this object's monitor (engine and worker threads);
 * health is computed from volatile snapshots on any thread.
 */
final class ClusterConnection {

  private static final Logger LOG = LoggerFactory.getLogger(ClusterConnection.class);

  /** One client of the cluster and the registry over it. */
  static final class Link {
    private final KubernetesClient client;
    private final InformerRegistry registry;
    private final boolean owned;
    private int attached;
    private volatile String serverVersion;
    private volatile Instant versionReadAt;
    /** The last failed version read: when, its HTTP status ({@code 0}: no answer) and why. */
    private volatile ProbeFailure probeFailure;
    private volatile long nextProbeNanos;

    Link(KubernetesClient client, InformerRegistry registry, boolean owned) {
      this.client = client;
      this.registry = registry;
      this.owned = owned;
      this.nextProbeNanos = System.nanoTime();
    }

    InformerLease lease(LeaseRequest request, LeaseListener listener) {
      return registry.lease(request, listener);
    }

    InformerRegistry registry() {
      return registry;
    }
  }

  private record ProbeFailure(Instant at, int code, String message) {}

  final String name;
  private final ClusterConnections source;
  private final BiFunction<KubernetesClient, InformerOptions, InformerRegistry> registries;
  private final InformerOptions options;
  private final Executor probes;
  private volatile Link current;
  private volatile ClusterConnectionException failure;
  /** Replaced links some unit still reads (guarded by this). */
  private final java.util.Set<Link> draining = new java.util.HashSet<>();

  private ClusterConnection(String name, ClusterConnections source,
      BiFunction<KubernetesClient, InformerOptions, InformerRegistry> registries,
      InformerOptions options, Executor probes) {
    this.name = name;
    this.source = source;
    this.registries = registries;
    this.options = options;
    this.probes = probes;
  }

  /**
   * A connection to another cluster, not yet opened.
   *
   * @param registries builds a cluster's registry (the engine: {@code new InformerRegistry})
   * @param options the cluster's informer settings (named after it)
   * @param probes where the server version is read, off the engine's threads
   */
  static ClusterConnection remote(String name, ClusterConnections source,
      BiFunction<KubernetesClient, InformerOptions, InformerRegistry> registries,
      InformerOptions options, Executor probes) {
    return new ClusterConnection(name, source, registries, options, probes);
  }

  /** The engine's own cluster, over the engine's registry (health only). */
  static ClusterConnection local(String name, KubernetesClient client, InformerRegistry registry,
      Executor probes) {
    ClusterConnection c = new ClusterConnection(name, null, null, null, probes);
    c.current = new Link(client, registry, false);
    c.current.attached = 1;
    return c;
  }

  /**
   * Opens a client and its registry; a failure is kept (and reported) until {@link #reopen}.
   * Never throws.
   */
  synchronized void open() {
    KubernetesClient client;
    try {
      client = source.open(name);
      if (client == null) {
        throw new ClusterConnectionException(ClusterConnectionException.REASON_NOT_FOUND,
            "cluster " + name + " has no client");
      }
    } catch (ClusterConnectionException e) {
      failure = e;
      LOG.warn("Cannot open cluster {} ({}): {}", name, e.reason(), e.getMessage());
      return;
    } catch (RuntimeException e) {
      failure = new ClusterConnectionException(ClusterConnectionException.REASON_INVALID_KUBECONFIG,
          "cluster " + name + ": the connection cannot be built (" + e.getClass().getSimpleName()
              + ")", e);
      LOG.warn("Cannot open cluster {}: {}", name, failure.getMessage());
      return;
    }
    InformerRegistry registry;
    try {
      registry = registries.apply(client, options);
    } catch (RuntimeException e) {
      release(client);
      failure = new ClusterConnectionException(ClusterConnectionException.REASON_INVALID_KUBECONFIG,
          "cluster " + name + ": " + e.getMessage(), e);
      return;
    }
    failure = null;
    current = new Link(client, registry, true);
    probe(current);
    LOG.info("Opened cluster {}", name);
  }

  /**
   * The credentials or address changed: opens a new client and registry as the current link;
   * the old one closes once its last unit has moved (at once when none is attached).
   */
  synchronized void reopen() {
    Link old = current;
    current = null;
    open();
    if (old != null && old.attached == 0) {
      retire(old);
    } else if (old != null) {
      draining.add(old);
    }
  }

  /** The current link with one more unit attached, or {@code null} when the cluster is not open. */
  synchronized Link attachCurrent() {
    Link l = current;
    if (l != null) {
      l.attached++;
    }
    return l;
  }

  /** Whether {@code link} is the current one. */
  boolean isCurrent(Link link) {
    return link == current;
  }

  /** A unit left {@code link}; an old link closes with its last unit. */
  synchronized void detach(Link link) {
    if (link == null) {
      return;
    }
    link.attached--;
    if (link.attached <= 0 && link != current && draining.remove(link)) {
      retire(link);
    }
  }

  /** Closes the current link: no unit reads the cluster any more (or the engine closes). */
  synchronized void close() {
    Link l = current;
    current = null;
    if (l != null && l.owned) {
      retire(l);
    }
    draining.forEach(this::retire);
    draining.clear();
  }

  private void retire(Link link) {
    try {
      link.registry.close();
    } finally {
      release(link.client);
    }
  }

  private void release(KubernetesClient client) {
    try {
      source.release(name, client);
    } catch (RuntimeException e) {
      LOG.warn("Releasing the client of cluster {} failed", name, e);
    }
  }

  /** Why the cluster cannot be opened, if it cannot. */
  Optional<ClusterConnectionException> failure() {
    return Optional.ofNullable(failure);
  }

  /** Reads the server version once per link (again after a failure, at most once per window). */
  void probeIfDue() {
    Link l = current;
    if (l != null && l.serverVersion == null && System.nanoTime() - l.nextProbeNanos >= 0) {
      probe(l);
    }
  }

  private void probe(Link link) {
    link.nextProbeNanos = System.nanoTime() + probeInterval().toNanos();
    try {
      probes.execute(() -> {
        try {
          String version = link.client.getKubernetesVersion().getGitVersion();
          link.versionReadAt = Instant.now();
          link.serverVersion = version;
          link.probeFailure = null;
        } catch (KubernetesClientException e) {
          Throwable t = e.getCode() == 0 && e.getCause() != null ? e.getCause() : e;
          link.probeFailure = new ProbeFailure(Instant.now(), e.getCode(),
              "reading the server version failed: " + (e.getCode() == 0 ? "" : "HTTP "
                  + e.getCode() + ", ") + t.getClass().getSimpleName());
        } catch (RuntimeException e) {
          link.probeFailure = new ProbeFailure(Instant.now(), 0,
              "reading the server version failed: " + e.getClass().getSimpleName());
        }
      });
    } catch (RejectedExecutionException e) {
      // closing
    }
  }

  private java.time.Duration probeInterval() {
    return options == null ? InformerOptions.DEFAULT_WATCH_LIVENESS : options.watchLiveness();
  }

  /**
   * The cluster's health, or empty before anything is known of it (opened, nothing answered
   * and nothing failed yet).
   */
  Optional<ClusterHealth> health() {
    ClusterConnectionException f = failure;
    if (f != null) {
      boolean forbidden = ClusterConnectionException.REASON_FORBIDDEN.equals(f.reason());
      return Optional.of(new ClusterHealth(name, forbidden ? ClusterHealth.State.FORBIDDEN
          : ClusterHealth.State.INVALID, f.reason(), f.getMessage(), null, null, 0, null));
    }
    Link l = current;
    if (l == null) {
      return Optional.empty();
    }
    ConnectionHealth ch = l.registry.connectionHealth();
    Instant last = later(ch.lastContact(), l.versionReadAt);
    ProbeFailure pf = l.probeFailure;
    boolean probeFailing = pf != null && (last == null || pf.at().isAfter(last));
    ClusterHealth.State state;
    String reason;
    String message;
    if (ch.problem() == ConnectionHealth.Problem.UNAUTHORIZED
        || (probeFailing && pf.code() == 401)) {
      state = ClusterHealth.State.UNAUTHORIZED;
      reason = "Unauthorized";
      message = ch.problem() == ConnectionHealth.Problem.UNAUTHORIZED ? ch.message()
          : pf.message();
    } else if (ch.problem() == ConnectionHealth.Problem.UNREACHABLE
        || (probeFailing && pf.code() == 0)) {
      state = ClusterHealth.State.UNREACHABLE;
      reason = "Unreachable";
      message = ch.problem() == ConnectionHealth.Problem.UNREACHABLE ? ch.message()
          : pf.message();
    } else if (ch.problem() == ConnectionHealth.Problem.FORBIDDEN) {
      state = ClusterHealth.State.FORBIDDEN;
      reason = "Forbidden";
      message = ch.message();
    } else if (last != null) {
      state = ClusterHealth.State.CONNECTED;
      reason = "Connected";
      message = "connected" + (l.serverVersion == null ? "" : " to " + l.serverVersion) + ", "
          + ch.watchedTypes().size() + (ch.watchedTypes().size() == 1 ? " type" : " types")
          + " watched";
    } else {
      return Optional.empty();
    }
    return Optional.of(new ClusterHealth(name, state, reason, message, l.serverVersion,
        ch.watchedTypes().stream().map(ResourceType::toString).toList(), ch.openWatches(), last));
  }

  private static Instant later(Instant a, Instant b) {
    if (a == null) {
      return b;
    }
    return b == null || a.isAfter(b) ? a : b;
  }
}
