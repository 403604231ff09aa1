package io.kollect.core;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kollect.export.Exporter;
import io.kollect.export.InventorySink;
import io.kollect.export.Sink;
import io.kollect.export.SinkOptions;
import io.kollect.extract.FieldRule;
import io.kollect.extract.ProfileCompiler;
import io.kollect.extract.ProfileSpec;
import io.kollect.extract.Record;
import io.kollect.extract.ResourceRule;
import io.kollect.informers.InformerLease;
import io.kollect.informers.LeaseListener;
import io.kollect.informers.LeaseRequest;
import io.kollect.informers.LeaseStatus;
import io.kollect.informers.ResourceEvent;
import io.kollect.informers.ResourceType;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Field;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.openjdk.jol.info.GraphLayout;

/**
 * Cost per change and memory per object of the engine's per-target work, without an API server:
 * one target over ConfigMaps held in an in-memory lease (the delta engine's benchmark shape: two
 * data keys of ~50 bytes each, one label, 20 namespaces, a profile of two fields), the real exporter
 * with a sink that discards, and the real worker path: the lease listener gets an UPDATED event,
 * the target is taken from the work queue and reconciled, as {@code KollectEngine}'s workers do.
 *
 * <p>{@code cost}: µs per change at 5,000 and 50,000 objects side by side (worker thread CPU and
 * wall time, and the whole process's CPU, which includes delivery threads and GC). {@code
 * memory}: JOL-retained bytes per object of the target's engine state (the per-target maps and
 * the records they hold; what the informer cache holds is subtracted) and of the in-memory
 * inventory view. Not run by {@code verify}; see docs/benchmarks.md for the command.
 *
 * <p>Written against the reconciler's constructor, {@code reconcile} and the lease listener only,
 * so the same file runs against the engine before and after the incremental redesign.
 */
public final class EngineCostBenchmark {

  static final ResourceType CM = new ResourceType("", "v1", "ConfigMap");
  static final int NAMESPACES = 20;

  /** An informer cache in memory, with O(1) reads of one object. */
  static final class MapLease implements InformerLease {
    final Map<String, GenericKubernetesResource> objects = new ConcurrentHashMap<>();
    final LeaseRequest request;
    LeaseListener listener;

    MapLease(LeaseRequest request) {
      this.request = request;
    }

    @Override
    public LeaseRequest request() {
      return request;
    }

    @Override
    public List<GenericKubernetesResource> list() {
      return new ArrayList<>(objects.values());
    }

    @Override
    public GenericKubernetesResource get(String namespace, String name) {
      return objects.get(namespace + "/" + name);
    }

    @Override
    public boolean hasSynced() {
      return true;
    }

    @Override
    public LeaseStatus status() {
      return new LeaseStatus(CM, true, true, List.of());
    }

    @Override
    public void close() {}
  }

  /** A sink that accepts and drops everything. */
  static final class DiscardingSink implements Sink {
    @Override
    public String name() {
      return "null";
    }

    @Override
    public void write(List<Record> batch) {}
  }

  static GenericKubernetesResource configMap(int i, long rv) {
    return new GenericKubernetesResourceBuilder().withApiVersion("v1").withKind("ConfigMap")
        .withNewMetadata().withName("cm-" + i).withNamespace("ns-" + (i % NAMESPACES))
        .withUid("0f1e2d3c-4b5a-6978-8796-a5b4c3d2" + String.format("%04d", i % 10000))
        .withResourceVersion(Long.toString(rv)).addToLabels("app", "app-" + (i % 50))
        .endMetadata()
        .addToAdditionalProperties("data", Map.of(
            "a", "value-a-" + rv + "-0123456789012345678901234567890123456789",
            "b", "value-b-" + i + "-0123456789012345678901234567890123456789"))
        .build();
  }

  /** One target's engine with its lease, fed with {@code size} ConfigMaps and reconciled once. */
  static final class Fixture implements AutoCloseable {
    final KubernetesSerialization serialization = new KubernetesSerialization();
    final Exporter exporter = Exporter.builder().build();
    final InventorySink view = new InventorySink("view");
    final WorkQueue<TargetId> queue = new WorkQueue<>(RateLimiter.controllerDefault(
        Duration.ofMillis(1), Duration.ofSeconds(1), 100, 100, RateLimiter.Ticker.SYSTEM),
        RateLimiter.Ticker.SYSTEM);
    final ProfileVersion profile;
    final TargetRuntime rt;
    final TargetReconciler reconciler;
    MapLease lease;
    long rv;

    Fixture(int size) {
      ProfileSpec spec = new ProfileSpec(List.of(new ResourceRule("", "v1", "ConfigMap",
          List.of(FieldRule.of("a", ".data.a"), FieldRule.of("b", ".data.b")), List.of(),
          List.of(), List.of(), false, false)));
      profile = new ProfileVersion(spec, ProfileCompiler.compile("cm", spec), null);
      exporter.addSink(new DiscardingSink(), SinkOptions.defaults().withLinger(Duration.ZERO));
      List<GenericKubernetesResource> initial = new ArrayList<>();
      for (int i = 0; i < size; i++) {
        initial.add(configMap(i, ++rv));
      }
      TargetReconciler.Inputs inputs = new TargetReconciler.Inputs() {
        @Override
        public ProfileVersion profile(String name) {
          return profile;
        }

        @Override
        public boolean sinkConfigured(String name) {
          return true;
        }

        @Override
        public boolean exportEnabled() {
          return true;
        }

        @Override
        public InformerLease lease(LeaseRequest request, LeaseListener listener) {
          lease = new MapLease(request);
          lease.listener = listener;
          for (GenericKubernetesResource o : initial) {
            lease.objects.put(o.getMetadata().getNamespace() + "/" + o.getMetadata().getName(), o);
          }
          return lease;
        }
      };
      reconciler = TargetReconciler.builder("bench", inputs, exporter, queue).view(view)
          .toJson(obj -> ClientJson.toTree(serialization, obj)).build();
      rt = new TargetRuntime(TargetRuntime.Definition.of(new TargetSpec(new TargetId("ns", "t"),
          1, "cm", TargetScope.everything(), List.of("null"), false)));
      queue.add(rt.id);
      drain();
      if (view.size("ns/t") != size) {
        throw new IllegalStateException("expected " + size + " records, got "
            + view.size("ns/t"));
      }
    }

    /** Changes object {@code i} in the cache and tells the lease listener, as an informer does. */
    void change(int i) {
      GenericKubernetesResource o = configMap(i, ++rv);
      lease.objects.put(o.getMetadata().getNamespace() + "/" + o.getMetadata().getName(), o);
      lease.listener.onEvent(new ResourceEvent(ResourceEvent.Kind.UPDATED, CM,
          o.getMetadata().getNamespace(), o.getMetadata().getName(), o));
    }

    /** What a worker does: take the target from the queue, reconcile it, mark it done. */
    void drain() {
      try {
        while (queue.length() > 0) {
          Optional<TargetId> id = queue.get();
          if (id.isEmpty()) {
            return;
          }
          try {
            TargetStatus st = reconciler.reconcile(rt);
            rt.status = st;
            queue.forget(id.get());
          } finally {
            queue.done(id.get());
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }

    @Override
    public void close() {
      exporter.close();
    }
  }

  record Cost(double workerCpuMicros, double wallMicros, double processCpuMicros) {}

  static Cost cost(int size, int changes) {
    try (Fixture f = new Fixture(size)) {
      for (int i = 0; i < Math.min(200, changes); i++) {
        f.change((i * 7919) % size);
        f.drain();
      }
      f.exporter.awaitIdle(Duration.ofMinutes(1));
      System.gc();
      ThreadMXBean threads = ManagementFactory.getThreadMXBean();
      com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean)
          ManagementFactory.getOperatingSystemMXBean();
      long cpu0 = threads.getCurrentThreadCpuTime();
      long proc0 = os.getProcessCpuTime();
      long t0 = System.nanoTime();
      for (int i = 0; i < changes; i++) {
        f.change((int) ((i * 104729L) % size));
        f.drain();
      }
      long wall = System.nanoTime() - t0;
      long cpu = threads.getCurrentThreadCpuTime() - cpu0;
      f.exporter.awaitIdle(Duration.ofMinutes(1));
      long proc = os.getProcessCpuTime() - proc0;
      return new Cost(cpu / 1000.0 / changes, wall / 1000.0 / changes, proc / 1000.0 / changes);
    }
  }

  /** The per-target state fields of {@link TargetRuntime} that exist in this version. */
  static List<Object> targetState(TargetRuntime rt) throws IllegalAccessException {
    List<Object> out = new ArrayList<>();
    for (String name : List.of("memo", "desired", "exportedHashes", "records")) {
      try {
        Field f = TargetRuntime.class.getDeclaredField(name);
        f.setAccessible(true);
        Object v = f.get(rt);
        if (v != null) {
          out.add(v);
        }
      } catch (NoSuchFieldException absent) {
        // not in this version
      }
    }
    return out;
  }

  static void memory(int size, boolean footprint) throws Exception {
    try (Fixture f = new Fixture(size)) {
      f.exporter.awaitIdle(Duration.ofMinutes(1));
      System.gc();
      GraphLayout cache = GraphLayout.parseInstance(f.lease.objects);
      GraphLayout state = GraphLayout.parseInstance(targetState(f.rt).toArray());
      GraphLayout both = GraphLayout.parseInstance(
          java.util.stream.Stream.concat(targetState(f.rt).stream(), java.util.stream.Stream.of(
              f.view)).toArray());
      long stateBytes = state.subtract(cache).totalSize();
      long bothBytes = both.subtract(cache).totalSize();
      if (footprint) {
        System.out.println(state.subtract(cache).toFootprint());
      }
      System.out.printf("memory  objects=%d  engine state: %.0f B/object  engine state + "
              + "inventory view: %.0f B/object  (informer cache, not counted: %.0f B/object)%n",
          size, (double) stateBytes / size, (double) bothBytes / size,
          (double) cache.totalSize() / size);
    }
  }

  public static void main(String[] args) throws Exception {
    String mode = args.length > 0 ? args[0] : "all";
    int changes = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
    if (mode.equals("cost") || mode.equals("all")) {
      // Warm the JIT on the small size first, then measure both sizes, twice, side by side.
      cost(5_000, changes);
      for (int round = 1; round <= 2; round++) {
        Cost small = cost(5_000, changes);
        Cost large = cost(50_000, changes);
        System.out.printf("cost round %d, %d changes: 5k: worker %.1f µs cpu / %.1f µs wall / "
                + "process %.1f µs cpu per change; 50k: worker %.1f µs cpu / %.1f µs wall / "
                + "process %.1f µs cpu; ratio 50k/5k (worker cpu) %.2f%n", round, changes,
            small.workerCpuMicros(), small.wallMicros(), small.processCpuMicros(),
            large.workerCpuMicros(), large.wallMicros(), large.processCpuMicros(),
            large.workerCpuMicros() / small.workerCpuMicros());
      }
    }
    if (mode.equals("memory") || mode.equals("all")) {
      memory(50_000, false);
    }
    if (mode.equals("footprint")) {
      memory(50_000, true); // the classes behind the bytes
    }
  }
}
