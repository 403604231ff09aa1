package io.kollect.bench;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.testing.TestApiServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

/**
 * The runner's own kube-apiserver 1.20.2 (kube-api-test, the binaries the ITs use) with the
 * Kollect CRDs from {@code deploy/crds}, the fixture namespaces, an admin kubeconfig file for the
 * operator, fabric8 for applying resources and a {@link PlainApi} for everything timed.
 */
final class BenchCluster implements AutoCloseable {

  private static final String TOKEN = "kollect-bench-admin-token";

  private final TestApiServer server;
  private final PlainApi api;
  private final Path kubeconfig;
  private int created;
  /**
   * Fixture objects created from now on carry an owner reference shared by this many objects of a
   * namespace, none at zero ({@link Fixture#configMapJson}).
   */
  private int objectsPerOwner;

  private BenchCluster(TestApiServer server, PlainApi api, Path kubeconfig) {
    this.server = server;
    this.api = api;
    this.kubeconfig = kubeconfig;
  }

  static BenchCluster start(Path repo, Path workDir) throws IOException {
    TestApiServer server = TestApiServer.builder()
        .tokenUser(TOKEN, "kollect-bench", "system:masters")
        .start();
    Files.createDirectories(workDir);
    Path kubeconfig = Files.writeString(workDir.resolve("kubeconfig.yaml"), server.adminKubeconfigYaml());
    var cfg = server.adminConfig();
    byte[] ca = cfg.getCaCertData() != null
        ? Base64.getDecoder().decode(cfg.getCaCertData())
        : Files.readAllBytes(Path.of(cfg.getCaCertFile()));
    BenchCluster cluster = new BenchCluster(server, new PlainApi(cfg.getMasterUrl(), ca, TOKEN), kubeconfig);
    cluster.applyCrds(repo.resolve("deploy/crds"));
    server.namespace(Fixture.CONTROL_NAMESPACE);
    Fixture.namespaces().forEach(server::namespace);
    server.namespace(Fixture.CALIBRATION_NAMESPACE);
    HttpResponse<String> calibration;
    try {
      calibration = cluster.api.postAsync("/api/v1/namespaces/" + Fixture.CALIBRATION_NAMESPACE + "/configmaps",
          Fixture.calibrationConfigMapJson()).get();
    } catch (Exception e) {
      throw new IOException("cannot create the calibration ConfigMap", e);
    }
    if (calibration.statusCode() != 201) {
      throw new IOException("calibration ConfigMap: HTTP " + calibration.statusCode() + " " + calibration.body());
    }
    return cluster;
  }

  private void applyCrds(Path dir) throws IOException {
    KubernetesClient k = server.admin();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.filter(p -> p.getFileName().toString().endsWith("-v1.yml")).sorted().toList()) {
        try (InputStream in = Files.newInputStream(f)) {
          CustomResourceDefinition crd = k.apiextensions().v1().customResourceDefinitions().load(in).item();
          k.resource(crd).serverSideApply();
          k.apiextensions().v1().customResourceDefinitions().withName(crd.getMetadata().getName())
              .waitUntilCondition(c -> c != null && c.getStatus() != null && c.getStatus().getConditions() != null
                  && c.getStatus().getConditions().stream().anyMatch(
                      x -> "Established".equals(x.getType()) && "True".equals(x.getStatus())),
                  60, TimeUnit.SECONDS);
        }
      }
    }
  }

  PlainApi api() {
    return api;
  }

  KubernetesClient admin() {
    return server.admin();
  }

  Path kubeconfig() {
    return kubeconfig;
  }

  /** Server-side applies one YAML document (a Kollect custom resource). */
  void apply(String yaml) {
    server.admin().resource(yaml).forceConflicts().serverSideApply();
  }

  void delete(String yaml) {
    server.admin().resource(yaml).delete();
  }

  /** How many fixture objects created from now on share an owner reference (0: none). */
  void objectsPerOwner(int objects) {
    this.objectsPerOwner = objects;
  }

  /**
   * Creates fixture ConfigMaps until {@code total} exist, {@code parallelism} requests in flight,
   * printing progress; returns the seconds it took.
   */
  double growTo(int total, int parallelism) throws InterruptedException {
    if (total <= created) {
      return 0;
    }
    long t0 = System.nanoTime();
    Semaphore inFlight = new Semaphore(parallelism);
    AtomicInteger done = new AtomicInteger();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    int from = created;
    int step = Math.max(1000, (total - from) / 10);
    for (int i = from; i < total && failure.get() == null; i++) {
      inFlight.acquire();
      int index = i;
      CompletableFuture<HttpResponse<String>> f = api.postAsync(
          "/api/v1/namespaces/" + Fixture.namespace(index) + "/configmaps",
          Fixture.configMapJson(index, objectsPerOwner));
      f.whenComplete((r, e) -> {
        inFlight.release();
        if (e != null) {
          failure.compareAndSet(null, e);
        } else if (r.statusCode() != 201 && r.statusCode() != 409) {
          failure.compareAndSet(null, new IOException("create " + Fixture.name(index) + ": HTTP "
              + r.statusCode() + " " + r.body()));
        }
        int n = done.incrementAndGet();
        if (n % step == 0) {
          System.err.printf("  created %d/%d ConfigMaps (%.0f/s)%n", from + n, total,
              n / ((System.nanoTime() - t0) / 1e9));
        }
      });
    }
    inFlight.acquire(parallelism);
    inFlight.release(parallelism);
    if (failure.get() != null) {
      throw new IllegalStateException("creating ConfigMaps failed", failure.get());
    }
    created = total;
    return (System.nanoTime() - t0) / 1e9;
  }

  /** Fixture object names, for picking objects to change. */
  static List<String> pathsOf(int count) {
    return java.util.stream.IntStream.range(0, count)
        .mapToObj(i -> "/api/v1/namespaces/" + Fixture.namespace(i) + "/configmaps/" + Fixture.name(i))
        .toList();
  }

  @Override
  public void close() {
    server.close();
  }
}
