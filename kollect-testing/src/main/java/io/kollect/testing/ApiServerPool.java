package io.kollect.testing;

import io.fabric8.kubeapitest.KubeAPIServer;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The API servers of one test JVM that test classes handed back, kept running for the next class
 * that asks for the same configuration: a start costs about five seconds of CPU, a return to the
 * baseline a fraction of one. A server goes back only when {@link ClusterBaseline#restore} proves
 * it is as it was when set up and nothing is still watching it (a client a class forgot to close
 * would otherwise act in the next class); otherwise it is stopped. Servers still idle when the JVM
 * exits are stopped by a shutdown hook.
 */
final class ApiServerPool {

  private static final Logger log = LoggerFactory.getLogger(ApiServerPool.class);
  /** Idle servers kept per configuration: a class uses at most a home and a remote one. */
  private static final int IDLE_PER_KEY = 2;

  /** What makes two servers interchangeable: flags, token users and the set-up step's name. */
  record Key(List<String> flags, List<String> tokenLines, String setUp) {}

  /** A running server with the baseline taken after its set-up. */
  record Idle(KubeAPIServer server, Config adminConfig, ClusterBaseline baseline) {}

  private static final Map<Key, Deque<Idle>> IDLE = new HashMap<>();

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(ApiServerPool::stopIdle, "api-server-pool"));
  }

  private ApiServerPool() {}

  /** An idle server of {@code key}, or empty. */
  static synchronized Optional<Idle> take(Key key) {
    Deque<Idle> idle = IDLE.get(key);
    return Optional.ofNullable(idle == null ? null : idle.pollFirst());
  }

  /** Restores {@code returned} to its baseline and keeps it idle, or stops it if it cannot be. */
  static void giveBack(Key key, Idle returned) {
    Optional<String> unfit;
    try (KubernetesClient client = new KubernetesClientBuilder()
        .withConfig(returned.adminConfig()).build()) {
      unfit = returned.baseline().restore(client);
    } catch (RuntimeException e) {
      unfit = Optional.of(e.toString());
    }
    if (unfit.isPresent()) {
      log.warn("API server on {} stopped instead of reused: {}",
          returned.adminConfig().getMasterUrl(), unfit.get());
      returned.server().stop();
      return;
    }
    synchronized (ApiServerPool.class) {
      Deque<Idle> idle = IDLE.computeIfAbsent(key, k -> new ArrayDeque<>());
      if (idle.size() < IDLE_PER_KEY) {
        idle.addLast(returned);
        log.info("API server on {} back to its baseline, kept for the next test class",
            returned.adminConfig().getMasterUrl());
        return;
      }
    }
    returned.server().stop();
  }

  private static void stopIdle() {
    List<Idle> all;
    synchronized (ApiServerPool.class) {
      all = IDLE.values().stream().flatMap(Deque::stream).toList();
      IDLE.clear();
    }
    for (Idle idle : all) {
      try {
        idle.server().stop();
      } catch (RuntimeException e) {
        // the JVM is exiting: stop the others regardless
      }
    }
  }
}
