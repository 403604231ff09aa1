package io.kollect.testing;

import io.fabric8.kubeapitest.KubeAPIServer;
import io.fabric8.kubeapitest.KubeAPIServerConfig;
import io.fabric8.kubeapitest.KubeAPIServerConfigBuilder;
import io.fabric8.kubeapitest.KubeAPITestException;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A real kube-apiserver + etcd for one test class (start it in {@code @BeforeAll}, close it in
 * {@code @AfterAll}: a start costs seconds).
 *
 * <p>It runs offline, from the binaries {@code scripts/provision-kube-binaries.sh} builds, whenever
 * they are present; otherwise kube-api-test downloads its own. (kube-api-test's
 * {@code KUBE_API_TEST_OFFLINE_MODE} variable is not used: 7.5.2 casts its string value to
 * {@code Boolean} and throws.)
 */
public final class TestApiServer implements AutoCloseable {

  /**
   * kube-api-test picks etcd's and the API server's ports as free, then the processes bind them:
   * another process (a test JVM in a parallel fork) may take one in between, and that start
   * fails; a whole new start then picks new ports.
   */
  private static final int START_ATTEMPTS = 3;
  /**
   * How long a start may take: a few seconds on a quiet machine, over a minute (kube-api-test's
   * default bound) on two cores that several builds share; only a failing start waits it out.
   */
  private static final Duration STARTUP_TIMEOUT = Duration.ofMinutes(3);

  private final KubeAPIServer server;
  private final String adminKubeconfig;
  private final Config adminConfig;
  private final KubernetesClient admin;
  /** Where {@link #close} hands the server back to, when it is {@link Builder#reused()}. */
  private ApiServerPool.Key poolKey;
  private ClusterBaseline baseline;

  private TestApiServer(KubeAPIServer server) {
    this.server = server;
    this.adminKubeconfig = server.getKubeConfigYaml();
    this.adminConfig = Config.fromKubeconfig(adminKubeconfig);
    this.admin = new KubernetesClientBuilder().withConfig(adminConfig).build();
  }

  /** Starts a server with no extra flags. */
  public static TestApiServer start() {
    return builder().start();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Extra API server flags, static token users, a set-up step, and whether to reuse servers. */
  public static final class Builder {
    private final List<String> tokenLines = new ArrayList<>();
    private final List<String[]> flags = new ArrayList<>();
    private String setUpName = "";
    private Consumer<TestApiServer> setUp = server -> { };
    private boolean reused;

    private Builder() {}

    /**
     * Runs {@code step} on a newly started server before it is handed out (e.g. installing CRDs);
     * {@code name} tells set-ups apart, so that a {@link #reused()} server is only handed to
     * classes that asked for the same one.
     */
    public Builder setUp(String name, Consumer<TestApiServer> step) {
      this.setUpName = name;
      this.setUp = step;
      return this;
    }

    /**
     * Takes an idle server of the same configuration that an earlier test class of this JVM closed,
     * if there is one, and hands the server back on {@link TestApiServer#close()} instead of
     * stopping it: saves the five seconds of CPU a start costs. The contract: a class may create,
     * change and delete anything it created itself (namespaces included); on close, what it added
     * is deleted, and the server is reused only if every object of the set-up is as it was and no
     * client still watches it; otherwise it is stopped. A class that changes objects it did not
     * create, restarts or freezes the server, or counts objects across the whole server without a
     * selector, should not ask for a reused one.
     */
    public Builder reused() {
      this.reused = true;
      return this;
    }

    /**
     * A user the server authenticates by bearer {@code token} (its {@code --token-auth-file}), e.g.
     * {@code system:serviceaccount:ns:name} with groups {@code system:serviceaccounts,
     * system:serviceaccounts:ns}, so RBAC applies to it as to that ServiceAccount.
     */
    public Builder tokenUser(String token, String user, String... groups) {
      tokenLines.add(token + "," + user + "," + user + ",\"" + String.join(",", groups) + "\"");
      return this;
    }

    /** A kube-apiserver flag with a value, e.g. {@code --audit-log-path}. */
    public Builder flag(String name, String value) {
      flags.add(new String[] {name, value});
      return this;
    }

    /** A kube-apiserver flag in {@code --name=value} or bare form. */
    public Builder flag(String flag) {
      flags.add(new String[] {flag});
      return this;
    }

    public TestApiServer start() {
      ApiServerPool.Key key = new ApiServerPool.Key(
          flags.stream().map(f -> String.join("=", f)).toList(), List.copyOf(tokenLines), setUpName);
      if (reused) {
        var idle = ApiServerPool.take(key);
        if (idle.isPresent()) {
          TestApiServer server = new TestApiServer(idle.get().server());
          server.poolKey = key;
          server.baseline = idle.get().baseline();
          return server;
        }
      }
      TestApiServer server = new TestApiServer(startProcesses());
      setUp.accept(server);
      if (reused) {
        server.poolKey = key;
        server.baseline = ClusterBaseline.capture(server.admin);
      }
      return server;
    }

    private KubeAPIServer startProcesses() {
      KubeAPIServerConfigBuilder config = KubeAPIServerConfigBuilder.anAPIServerConfig()
          .withOfflineMode(binariesProvisioned())
          .withUpdateKubeConfig(false)
          .withStartupTimeout((int) STARTUP_TIMEOUT.toMillis());
      if (!tokenLines.isEmpty()) {
        config.withApiServerFlag("--token-auth-file", writeTokenFile().toString());
      }
      for (String[] f : flags) {
        if (f.length == 1) {
          config.withApiServerFlag(f[0]);
        } else {
          config.withApiServerFlag(f[0], f[1]);
        }
      }
      KubeAPIServerConfig built = config.build();
      List<RuntimeException> earlier = new ArrayList<>();
      boolean heldForMidnight = false;
      for (int attempt = 1; ; attempt++) {
        WatchedStart server = new WatchedStart(built);
        RuntimeException failure;
        LocalTime began = LocalTime.now();
        long beganNanos = System.nanoTime();
        try {
          server.start();
          if (!server.processDied()) {
            return server;
          }
          failure = new KubeAPITestException("etcd or the API server exited while starting");
        } catch (RuntimeException e) {
          failure = e;
        }
        boolean died = server.processDied();
        if (died) {
          Thread.interrupted(); // the interrupt that ended the wait is spent
        } else {
          stopQuietly(server, failure); // (a process that exited had kube-api-test stop both)
        }
        Optional<Duration> wrapped = died || heldForMidnight ? Optional.empty()
            : MidnightWrap.retryAfter(began, Duration.ofNanos(System.nanoTime() - beganNanos),
                STARTUP_TIMEOUT);
        if (wrapped.isPresent()) {
          holdPastMidnight(wrapped.get(), failure);
          heldForMidnight = true;
          attempt--; // not the start's fault; once past midnight it cannot recur today
          earlier.add(failure);
          continue;
        }
        if (!died || attempt == START_ATTEMPTS) {
          earlier.forEach(failure::addSuppressed);
          throw failure;
        }
        earlier.add(failure);
      }
    }

    private static void holdPastMidnight(Duration hold, RuntimeException failure) {
      try {
        Thread.sleep(hold.toMillis() + 1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw failure;
      }
    }

    private static void stopQuietly(KubeAPIServer server, Exception failure) {
      try {
        server.stop();
      } catch (RuntimeException e) {
        failure.addSuppressed(e);
      }
    }

    private Path writeTokenFile() {
      try {
        Path file = Files.createTempFile("kollect-tokens", ".csv");
        file.toFile().deleteOnExit();
        return Files.write(file, tokenLines);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /**
   * A start that notices etcd or the API server exiting while it waits for them (a port taken
   * between its pick and the bind, typically): kube-api-test would wait out its whole startup
   * timeout; this interrupts the wait at once so that a new start can pick new ports.
   */
  private static final class WatchedStart extends KubeAPIServer {
    private final Thread starter = Thread.currentThread();
    private volatile boolean starting = true;
    private volatile boolean died;

    WatchedStart(KubeAPIServerConfig config) {
      super(config);
    }

    @Override
    public void start() {
      try {
        super.start();
      } finally {
        starting = false;
      }
    }

    @Override
    public void processStopped(Process process) {
      if (starting) {
        died = true;
        starter.interrupt();
      }
      super.processStopped(process);
    }

    boolean processDied() {
      return died;
    }
  }

  /** Whether {@code scripts/provision-kube-binaries.sh} has put binaries where kube-api-test looks. */
  public static boolean binariesProvisioned() {
    Path k8s = Path.of(System.getProperty("user.home"), ".kubeapitest", "k8s");
    try (var dirs = Files.list(k8s)) {
      return dirs.anyMatch(d -> Files.isExecutable(d.resolve("kube-apiserver")));
    } catch (IOException e) {
      return false;
    }
  }

  /** A shared cluster-admin client (client certificate in {@code system:masters}). */
  public KubernetesClient admin() {
    return admin;
  }

  /** A separate admin client with its own connections, as another process would have. */
  public KubernetesClient newAdminClient() {
    return new KubernetesClientBuilder().withConfig(adminConfig).build();
  }

  /** An admin client that connects to another port on loopback (e.g. through a test proxy). */
  public KubernetesClient adminVia(int port) {
    return new KubernetesClientBuilder().withConfig(new ConfigBuilder(adminConfig)
        .withMasterUrl("https://127.0.0.1:" + port).build()).build();
  }

  /** A client authenticated only by a bearer token of a {@link Builder#tokenUser} user. */
  public KubernetesClient clientForToken(String token) {
    return new KubernetesClientBuilder().withConfig(new ConfigBuilder(adminConfig)
        .withClientCertData(null).withClientKeyData(null)
        .withClientCertFile(null).withClientKeyFile(null)
        .withOauthToken(token)
        .build()).build();
  }

  public Config adminConfig() {
    return adminConfig;
  }

  public String adminKubeconfigYaml() {
    return adminKubeconfig;
  }

  /** A kubeconfig for a token user: same server and CA, no client certificate. */
  public String kubeconfigForToken(String user, String token) {
    return "apiVersion: v1\n"
        + "kind: Config\n"
        + "clusters:\n"
        + "  - name: kubeapitest\n"
        + "    cluster:\n"
        + "      server: " + adminConfig.getMasterUrl() + "\n"
        + "      certificate-authority-data: " + caData() + "\n"
        + "contexts:\n"
        + "  - name: " + user + "\n"
        + "    context:\n"
        + "      cluster: kubeapitest\n"
        + "      user: " + user + "\n"
        + "      namespace: default\n"
        + "current-context: " + user + "\n"
        + "users:\n"
        + "  - name: " + user + "\n"
        + "    user:\n"
        + "      token: " + token + "\n";
  }

  private String caData() {
    if (adminConfig.getCaCertData() != null) {
      return adminConfig.getCaCertData();
    }
    try {
      return java.util.Base64.getEncoder().encodeToString(
          Files.readAllBytes(Path.of(adminConfig.getCaCertFile())));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The port the API server listens on (loopback). */
  public int port() {
    return URI.create(adminConfig.getMasterUrl()).getPort();
  }

  /** Creates (or relabels) a namespace. */
  public void namespace(String name, Map<String, String> labels) {
    admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name)
        .withLabels(labels).endMetadata().build()).createOr(NonDeletingOperation::update);
  }

  public void namespace(String name) {
    namespace(name, Map.of());
  }

  /** Stops the server, or hands it back to be reused (see {@link Builder#reused()}). */
  @Override
  public void close() {
    try {
      admin.close();
    } finally {
      if (poolKey == null) {
        server.stop();
      } else {
        ApiServerPool.giveBack(poolKey, new ApiServerPool.Idle(server, adminConfig, baseline));
      }
    }
  }
}
