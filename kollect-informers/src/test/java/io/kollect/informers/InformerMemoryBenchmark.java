package io.kollect.informers;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentConditionBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.openjdk.jol.info.GraphLayout;

/**
 * Heap held per cached Deployment by a plain fabric8 informer, by the registry's default store
 * (managedFields and last-applied dropped) and by a 10-path projection; and per cached ConfigMap
 * of the operator-at-scale benchmark shape (two ~50-byte data keys, one label, 20 namespaces) by a plain
 * informer and by the projection store under a two-field profile; measured side by side in one
 * run on a real API server. Not a test: run it with
 * {@code ./mvnw -o -pl kollect-informers -Pbench test-compile exec:exec} (see docs/benchmarks.md).
 */
public final class InformerMemoryBenchmark {

  /** What a Deployment inventory profile reads: ten paths. */
  static final List<List<String>> DEPLOYMENT_PROFILE = List.of(
      List.of("spec", "replicas"),
      List.of("spec", "strategy", "type"),
      List.of("spec", "selector", "matchLabels"),
      List.of("spec", "template", "spec", "containers", "name"),
      List.of("spec", "template", "spec", "containers", "image"),
      List.of("spec", "template", "spec", "serviceAccountName"),
      List.of("status", "replicas"),
      List.of("status", "readyReplicas"),
      List.of("status", "availableReplicas"),
      List.of("status", "conditions", "type"));

  /** The operator-at-scale benchmark profile: two fields of a ConfigMap. */
  static final List<List<String>> CONFIG_MAP_PROFILE = List.of(List.of("data", "a"), List.of("data", "b"));

  private static final String NAMESPACE = "bench";
  private static final int CONFIG_MAP_NAMESPACES = 20;

  private InformerMemoryBenchmark() {}

  /**
   * A started cache: what it holds per object (a plain informer's objects, the projection
   * store's entries as held), how many objects, and how to stop it.
   */
  private record Cache(Object[] held, int size, Runnable stop) {
    Cache(List<? extends HasMetadata> objects, Runnable stop) {
      this(objects.toArray(), objects.size(), stop);
    }

    /** The registry's stores as they hold the objects (reading them builds new copies). */
    static Cache of(InformerRegistry registry, int size) {
      return new Cache(registry.heldObjects().toArray(), size, registry::close);
    }
  }

  /** One variant's figures. */
  private record Result(String variant, long jolBytes, long heapBytes, int objects) {}

  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
    // "configmaps" runs only the ConfigMap rows (a couple of minutes less)
    boolean deployments = args.length < 2 || !args[1].equals("configmaps");
    io.kollect.testing.TestApiServer server = io.kollect.testing.TestApiServer.start();
    try (KubernetesClient client = server.newAdminClient()) {
      if (deployments) {
        deploymentRows(client, n);
      }
      configMapRows(client, n);
    } finally {
      server.close();
    }
  }

  private static void deploymentRows(KubernetesClient client, int n) throws Exception {
    {
      populate(client, n);
      List<Result> results = new ArrayList<>();
      results.add(measure("plain fabric8 informer (GenericKubernetesResource)", n, () -> {
        SharedIndexInformer<?> inf = client.genericKubernetesResources("apps/v1", "Deployment")
            .inNamespace(NAMESPACE).inform();
        await(() -> inf.hasSynced() && inf.getStore().list().size() == n);
        return new Cache((List<? extends HasMetadata>) inf.getStore().list(), inf::stop);
      }));
      results.add(measure("plain fabric8 informer (typed Deployment)", n, () -> {
        SharedIndexInformer<Deployment> inf = client.apps().deployments().inNamespace(NAMESPACE).inform();
        await(() -> inf.hasSynced() && inf.getStore().list().size() == n);
        return new Cache(inf.getStore().list(), inf::stop);
      }));
      results.add(measure("kollect default store (no managedFields, no last-applied)", n,
          () -> registryCache(client, null, n)));
      results.add(measure("kollect projection (10-path Deployment profile)", n,
          () -> registryCache(client, DEPLOYMENT_PROFILE, n)));
      print(results, n, "Deployment");
    }
  }

  private static void configMapRows(KubernetesClient client, int n) throws Exception {
    {
      populateConfigMaps(client, n);
      List<Result> configMaps = new ArrayList<>();
      configMaps.add(measure("plain fabric8 informer (GenericKubernetesResource)", n, () -> {
        SharedIndexInformer<?> inf = client.genericKubernetesResources("v1", "ConfigMap")
            .inAnyNamespace().withLabel("bench", "inventory").inform();
        await(() -> inf.hasSynced() && inf.getStore().list().size() == n);
        return new Cache((List<? extends HasMetadata>) inf.getStore().list(), inf::stop);
      }));
      configMaps.add(measure("plain fabric8 informer (typed ConfigMap)", n, () -> {
        SharedIndexInformer<ConfigMap> inf = client.configMaps().inAnyNamespace()
            .withLabel("bench", "inventory").inform();
        await(() -> inf.hasSynced() && inf.getStore().list().size() == n);
        return new Cache(inf.getStore().list(), inf::stop);
      }));
      configMaps.add(measure("kollect projection (data.a, data.b), one lease on 20 namespaces", n, () -> {
        InformerRegistry registry = new InformerRegistry(client, InformerOptions.defaults()
            .withReleaseGrace(Duration.ZERO));
        Set<String> namespaces = new java.util.TreeSet<>();
        for (int i = 0; i < CONFIG_MAP_NAMESPACES; i++) {
          namespaces.add("cm-bench-" + i);
        }
        InformerLease lease = registry.lease(new LeaseRequest(Fixtures.CONFIG_MAP, namespaces,
            null, Set.of(), CONFIG_MAP_PROFILE), event -> { });
        await(() -> lease.hasSynced() && lease.list().size() == n);
        return Cache.of(registry, lease.list().size());
      }));
      print(configMaps, n, "ConfigMap");
      largestAllocationPerEvent(client, n);
    }
  }

  /**
   * Records every allocation outside a TLAB (where any large allocation lands) with JFR while
   * the projection store handles 200 updates, and reports the largest: no event may cost a
   * single allocation of 1 MiB or more (a copy of a store or an index would).
   */
  private static void largestAllocationPerEvent(KubernetesClient client, int n) throws Exception {
    InformerRegistry registry = new InformerRegistry(client, InformerOptions.defaults());
    java.util.concurrent.atomic.AtomicInteger updates = new java.util.concurrent.atomic.AtomicInteger();
    Set<String> namespaces = new java.util.TreeSet<>();
    for (int i = 0; i < CONFIG_MAP_NAMESPACES; i++) {
      namespaces.add("cm-bench-" + i);
    }
    InformerLease lease = registry.lease(new LeaseRequest(Fixtures.CONFIG_MAP, namespaces, null,
        Set.of(), CONFIG_MAP_PROFILE), event -> {
          if (event.kind() == ResourceEvent.Kind.UPDATED) {
            updates.incrementAndGet();
          }
        });
    await(() -> lease.hasSynced() && lease.list().size() == n);
    java.nio.file.Path file = java.nio.file.Files.createTempFile("informer-events", ".jfr");
    int changes = 200;
    try (jdk.jfr.Recording recording = new jdk.jfr.Recording()) {
      recording.enable("jdk.ObjectAllocationOutsideTLAB").withStackTrace();
      recording.start();
      for (int i = 0; i < changes; i++) {
        String ns = "cm-bench-" + (i % CONFIG_MAP_NAMESPACES);
        client.configMaps().inNamespace(ns).withName("config-" + i)
            .edit(cm -> { cm.getData().put("a", cm.getData().get("a") + "!"); return cm; });
      }
      await(() -> updates.get() >= changes);
      recording.stop();
      recording.dump(file);
    }
    registry.close();
    long largest = 0;
    String where = "";
    long atLeastMiB = 0;
    for (jdk.jfr.consumer.RecordedEvent e : jdk.jfr.consumer.RecordingFile.readAllEvents(file)) {
      long size = e.getLong("allocationSize");
      String thread = e.getThread() == null ? "?" : e.getThread().getJavaName();
      if ("main".equals(thread)) {
        continue; // the benchmark's own edits
      }
      if (size >= 1 << 20) {
        atLeastMiB++;
      }
      if (size > largest) {
        largest = size;
        var frames = e.getStackTrace() == null ? List.<jdk.jfr.consumer.RecordedFrame>of()
            : e.getStackTrace().getFrames();
        where = thread + " " + e.getClass("objectClass").getName() + " at "
            + frames.stream().limit(4).map(f -> f.getMethod().getType().getName() + "."
                + f.getMethod().getName()).collect(java.util.stream.Collectors.joining(" < "));
      }
    }
    java.nio.file.Files.deleteIfExists(file);
    System.out.printf("%nDuring %d update events on %,d cached ConfigMaps: largest single allocation "
        + "%,d bytes (%s); allocations of 1 MiB or more: %d%n", changes, n, largest, where, atLeastMiB);
  }

  private static Cache registryCache(KubernetesClient client, List<List<String>> keepPaths, int n) {
    InformerRegistry registry = new InformerRegistry(client, InformerOptions.defaults()
        .withReleaseGrace(Duration.ZERO));
    InformerLease lease = registry.lease(new LeaseRequest(Fixtures.DEPLOYMENT, Set.of(NAMESPACE),
        null, Set.of(), keepPaths), new RecordingListener());
    await(() -> lease.hasSynced() && lease.list().size() == n);
    return Cache.of(registry, lease.list().size());
  }

  private static Result measure(String variant, int n, Supplier<Cache> start) throws Exception {
    long before = usedHeapAfterGc();
    Cache cache = start.get();
    long after = usedHeapAfterGc();
    long jol = GraphLayout.parseInstance(cache.held()).totalSize();
    Result r = new Result(variant, jol / n, (after - before) / n, cache.size());
    cache.stop().run();
    System.out.printf("%-58s %,9d B/object (JOL)  %,9d B/object (heap delta)%n",
        variant, r.jolBytes(), r.heapBytes());
    return r;
  }

  private static long usedHeapAfterGc() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(200);
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static void await(BooleanSupplier condition) {
    Instant deadline = Instant.now().plusSeconds(120);
    while (!condition.getAsBoolean()) {
      if (Instant.now().isAfter(deadline)) {
        throw new IllegalStateException("cache did not fill within 120 s");
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }

  /** n Deployments as {@code kubectl apply} leaves them, with a status as a controller would. */
  private static void populate(KubernetesClient client, int n) throws Exception {
    client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE)
        .endMetadata().build()).create();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    List<Future<?>> work = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String name = "app-" + i;
      work.add(pool.submit(() -> {
        Deployment d = client.apps().deployments().inNamespace(NAMESPACE).resource(
            Fixtures.deployment(NAMESPACE, name, Map.of("app", name, "team", "team-" + (name.hashCode() & 7))))
            .create();
        d.setStatus(new DeploymentStatusBuilder().withObservedGeneration(1L).withReplicas(3)
            .withReadyReplicas(3).withAvailableReplicas(3).withUpdatedReplicas(3)
            .withConditions(
                new DeploymentConditionBuilder().withType("Available").withStatus("True")
                    .withReason("MinimumReplicasAvailable").withMessage("Deployment has minimum availability.")
                    .withLastUpdateTime("2026-11-22T00:00:00Z").withLastTransitionTime("2026-11-22T00:00:00Z").build(),
                new DeploymentConditionBuilder().withType("Progressing").withStatus("True")
                    .withReason("NewReplicaSetAvailable")
                    .withMessage("ReplicaSet \"" + name + "-5d8f7c9b4\" has successfully progressed.")
                    .withLastUpdateTime("2026-11-22T00:00:00Z").withLastTransitionTime("2026-11-22T00:00:00Z").build())
            .build());
        client.apps().deployments().inNamespace(NAMESPACE).resource(d).updateStatus();
        return null;
      }));
    }
    for (Future<?> f : work) {
      f.get();
    }
    pool.shutdown();
  }

  /**
   * n ConfigMaps of the operator-at-scale benchmark shape: two data keys (~100 bytes together)
   * and one label, spread over 20 namespaces, created with server-side defaults (managedFields
   * included).
   */
  private static void populateConfigMaps(KubernetesClient client, int n) throws Exception {
    for (int i = 0; i < CONFIG_MAP_NAMESPACES; i++) {
      client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("cm-bench-" + i)
          .endMetadata().build()).create();
    }
    ExecutorService pool = Executors.newFixedThreadPool(4);
    List<Future<?>> work = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String ns = "cm-bench-" + (i % CONFIG_MAP_NAMESPACES);
      String name = "config-" + i;
      work.add(pool.submit(() -> client.configMaps().inNamespace(ns).resource(new ConfigMapBuilder()
          .withNewMetadata().withNamespace(ns).withName(name).addToLabels("bench", "inventory").endMetadata()
          .addToData("a", "value-a-" + name + "-" + "x".repeat(30))
          .addToData("b", "value-b-" + name + "-" + "y".repeat(30))
          .build()).create()));
    }
    for (Future<?> f : work) {
      f.get();
    }
    pool.shutdown();
  }

  private static void print(List<Result> results, int n, String kind) {
    long plain = results.get(0).jolBytes();
    long plainHeap = results.get(0).heapBytes();
    System.out.println();
    System.out.println("| variant | bytes/" + kind + " (JOL) | vs plain | heap delta/" + kind + " | vs plain |");
    System.out.println("|---|---:|---:|---:|---:|");
    for (Result r : results) {
      System.out.printf("| %s | %,d | %.2f | %,d | %.2f |%n", r.variant(), r.jolBytes(),
          (double) r.jolBytes() / plain, r.heapBytes(), (double) r.heapBytes() / plainHeap);
    }
    System.out.println("(" + n + " " + kind + "s, JDK " + System.getProperty("java.version") + ")");
  }
}
