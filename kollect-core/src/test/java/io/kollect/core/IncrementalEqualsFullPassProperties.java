package io.kollect.core;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kollect.export.Exporter;
import io.kollect.export.InventoryQuery;
import io.kollect.export.InventorySink;
import io.kollect.export.SinkOptions;
import io.kollect.extract.FieldRule;
import io.kollect.extract.Op;
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
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterProperty;

/**
 * Delta passes give exactly what a full pass gives: random sequences of object changes (add,
 * update, delete, an update that changes nothing extracted, a label change that takes the object
 * out of the target's scope or into it, objects in a namespace the operator filters out, objects
 * that cannot be extracted) and profile changes, applied through the lease listener and the
 * worker's {@code reconcile} one batch at a time; after each batch the incremental state is
 * compared with a fresh full recompute of the same caches: records by key, per-type counts,
 * extraction errors, what the sink ends with, and the inventory view.
 */
class IncrementalEqualsFullPassProperties {

  static final ResourceType CM = new ResourceType("", "v1", "ConfigMap");
  static final List<String> NAMESPACES = List.of("a", "b", "filtered");
  static final int NAMES = 5;

  /** One change: what, to which object (index), with which value. */
  record Action(int what, int object, int value) {}

  @Provide
  Arbitrary<List<List<Action>>> batches() {
    Arbitrary<Action> action = Arbitraries.integers().between(0, 7).flatMap(what ->
        Arbitraries.integers().between(0, NAMES * NAMESPACES.size() - 1).flatMap(object ->
            Arbitraries.integers().between(0, 3).map(value -> new Action(what, object, value))));
    return action.list().ofMinSize(1).ofMaxSize(3).list().ofMinSize(1).ofMaxSize(25);
  }

  /** An object as the cluster holds it. */
  record Obj(String namespace, String name, long rv, int value, boolean inScope,
      boolean broken) {}

  /** The cluster and the lease's cache over it: the lease's scope is the label {@code in=yes}. */
  static final class World {
    final Map<String, Obj> objects = new TreeMap<>();
    final List<LeaseListener> listeners = new ArrayList<>();
    long rv;

    static GenericKubernetesResource resource(Obj o) {
      return new GenericKubernetesResourceBuilder().withApiVersion("v1").withKind("ConfigMap")
          .withNewMetadata().withNamespace(o.namespace()).withName(o.name())
          .withUid("uid-" + o.namespace() + "-" + o.name())
          .withResourceVersion(Long.toString(o.rv()))
          .addToLabels("in", o.inScope() ? "yes" : "no")
          .addToLabels("broken", Boolean.toString(o.broken())).endMetadata()
          .addToAdditionalProperties("data", Map.of("a", "v" + o.value(), "b", "w" + o.value()))
          .build();
    }

    GenericKubernetesResource get(String ns, String name) {
      Obj o = objects.get(ns + "/" + name);
      return o == null || !o.inScope() ? null : resource(o);
    }

    List<GenericKubernetesResource> list() {
      return objects.values().stream().filter(Obj::inScope).map(World::resource).toList();
    }

    /** Replaces (or with {@code null} deletes) an object and tells the listeners as a lease. */
    void set(String ns, String name, Obj next) {
      Obj before = next == null ? objects.remove(ns + "/" + name)
          : objects.put(ns + "/" + name, next);
      boolean was = before != null && before.inScope();
      boolean is = next != null && next.inScope();
      ResourceEvent.Kind kind = was && is ? ResourceEvent.Kind.UPDATED
          : is ? ResourceEvent.Kind.ADDED : was ? ResourceEvent.Kind.DELETED : null;
      if (kind == null) {
        return;
      }
      GenericKubernetesResource obj = resource(kind == ResourceEvent.Kind.DELETED ? before : next);
      for (LeaseListener l : listeners) {
        l.onEvent(new ResourceEvent(kind, CM, ns, name, obj));
      }
    }

    void apply(Action a) {
      String ns = NAMESPACES.get(a.object() % NAMESPACES.size());
      String name = "cm" + a.object() / NAMESPACES.size();
      Obj o = objects.get(ns + "/" + name);
      switch (a.what()) {
        case 0, 1 -> set(ns, name, new Obj(ns, name, ++rv, a.value(), o == null || o.inScope(),
            o != null && o.broken())); // add or update
        case 2 -> set(ns, name, null); // delete
        case 3 -> { // an update that changes nothing extracted
          if (o != null) {
            set(ns, name, new Obj(ns, name, ++rv, o.value(), o.inScope(), o.broken()));
          }
        }
        case 4 -> { // the label moves it out of the scope or into it
          if (o != null) {
            set(ns, name, new Obj(ns, name, ++rv, o.value(), !o.inScope(), o.broken()));
          }
        }
        case 5 -> { // becomes impossible to extract, or possible again
          if (o != null) {
            set(ns, name, new Obj(ns, name, ++rv, o.value(), o.inScope(), !o.broken()));
          }
        }
        default -> { } // 6, 7: profile changes, handled by the property
      }
    }
  }

  /** One reconciler with its own exporter, sink and view over the shared world. */
  static final class Engine {
    final Exporter exporter = Exporter.builder().build();
    final RecordingSink sink = new RecordingSink("rec");
    final InventorySink view = new InventorySink("view");
    final TargetReconciler reconciler;
    final TargetRuntime rt;

    Engine(World world, Map<String, ProfileVersion> profiles, boolean listens,
        boolean exporting) {
      this(world, profiles, listens, exporting, null);
    }

    Engine(World world, Map<String, ProfileVersion> profiles, boolean listens,
        boolean exporting, Integer maxObjects) {
      rt = new TargetRuntime(TargetRuntime.Definition.of(new TargetSpec(
          new TargetId("ns", "t"), 1, "p", new TargetScope(List.of(), null,
              new io.fabric8.kubernetes.api.model.LabelSelectorBuilder()
                  .addToMatchLabels("in", "yes").build(), List.of()), List.of("rec"), false)
          .toBuilder().maxObjects(maxObjects).build()));
      KubernetesSerialization serialization = new KubernetesSerialization();
      exporter.addSink(sink, SinkOptions.defaults().withLinger(Duration.ZERO));
      TargetReconciler.Inputs inputs = new TargetReconciler.Inputs() {
        @Override
        public ProfileVersion profile(String name) {
          return profiles.get(name);
        }

        @Override
        public boolean sinkConfigured(String name) {
          return true;
        }

        @Override
        public boolean exportEnabled() {
          return exporting;
        }

        @Override
        public InformerLease lease(LeaseRequest request, LeaseListener listener) {
          if (listens) {
            world.listeners.add(listener);
          }
          return new InformerLease() {
            @Override
            public LeaseRequest request() {
              return request;
            }

            @Override
            public List<GenericKubernetesResource> list() {
              return world.list();
            }

            @Override
            public GenericKubernetesResource get(String namespace, String name) {
              return world.get(namespace, name);
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
            public void close() {
              world.listeners.remove(listener);
            }
          };
        }
      };
      reconciler = TargetReconciler.builder("c", inputs, exporter,
              new WorkQueue<>(RateLimiter.controllerDefault(Duration.ofMillis(1),
                  Duration.ofSeconds(1), 100, 100, RateLimiter.Ticker.SYSTEM),
                  RateLimiter.Ticker.SYSTEM))
          .view(view)
          .namespaceFilter(ns -> !ns.equals("filtered"))
          .toJson(obj -> {
            JsonNode json = ClientJson.toTree(serialization, obj);
            if ("true".equals(obj.getMetadata().getLabels().get("broken"))) {
              // an object extraction refuses (as a corrupt Helm release would be)
              ((ObjectNode) json.get("metadata")).remove("name");
            }
            return json;
          })
          .build();
    }

    TargetStatus reconcile() {
      TargetStatus s = reconciler.reconcile(rt);
      rt.status = s;
      return s;
    }
  }

  private final List<Engine> engines = new ArrayList<>();

  @AfterProperty
  void close() {
    engines.forEach(e -> e.exporter.close());
    engines.clear();
  }

  static ProfileVersion profile(boolean withB) {
    List<FieldRule> fields = new ArrayList<>(List.of(FieldRule.of("a", ".data.a")));
    if (withB) {
      fields.add(FieldRule.of("b", ".data.b"));
    }
    ProfileSpec spec = new ProfileSpec(List.of(new ResourceRule("", "v1", "ConfigMap", fields,
        List.of(), List.of(), List.of(), false, false)));
    return new ProfileVersion(spec, ProfileCompiler.compile("p", spec), null);
  }

  @Property(tries = 60)
  void deltaPassesLeaveTheStateAFullPassWouldCompute(
      @ForAll("batches") List<List<Action>> batches) {
    check(batches, null);
  }

  /**
   * With a cap, what the sink and the view end with is the first {@code cap} keys of what a full
   * pass computes, while the counts stay those of everything in scope.
   */
  @Property(tries = 60)
  void underACapDeltaPassesExportTheFirstKeysAFullPassWouldExport(
      @ForAll("batches") List<List<Action>> batches,
      @ForAll @net.jqwik.api.constraints.IntRange(min = 0, max = 4) int cap) {
    check(batches, cap);
  }

  private void check(List<List<Action>> batches, Integer cap) {
    World world = new World();
    Map<String, ProfileVersion> profiles = new TreeMap<>(Map.of("p", profile(false)));
    Engine incremental = new Engine(world, profiles, true, true, cap);
    engines.add(incremental);
    incremental.reconcile();
    for (List<Action> batch : batches) {
      for (Action a : batch) {
        if (a.what() == 6 && a.value() == 0) {
          // a new profile version: the engine asks for a full pass of the targets using it
          boolean narrow = profiles.get("p").spec().resources().get(0).fields().size() == 1;
          profiles.put("p", profile(narrow));
          incremental.rt.requestFullPass();
        } else {
          world.apply(a);
        }
      }
      TargetStatus status = incremental.reconcile();
      assertThat(incremental.exporter.awaitIdle(Duration.ofSeconds(10))).isTrue();

      Engine full = new Engine(world, profiles, false, false, cap);
      engines.add(full);
      TargetStatus expected = full.reconcile();
      Map<String, String> inScope = hashes(full.rt.records.records());
      Map<String, String> expectedRecords = cap == null ? inScope : first(inScope, cap);

      assertThat(hashes(incremental.rt.records.records())).isEqualTo(inScope);
      assertThat(conditionOrNull(status, Condition.HIGH_CARDINALITY))
          .isEqualTo(conditionOrNull(expected, Condition.HIGH_CARDINALITY));
      assertThat(status.objectCounts()).isEqualTo(expected.objectCounts());
      assertThat(status.extractionErrorCount()).isEqualTo(expected.extractionErrorCount());
      assertThat(status.extractionErrors()).isEqualTo(expected.extractionErrors());
      assertThat(status.condition(Condition.EXTRACTION_ERRORS).message())
          .isEqualTo(expected.condition(Condition.EXTRACTION_ERRORS).message());
      assertThat(sinkEndState(incremental.sink)).isEqualTo(expectedRecords);
      assertThat(hashes(incremental.view.query(InventoryQuery.all())))
          .isEqualTo(expectedRecords);
      assertThat(hashes(full.view.query(InventoryQuery.all()))).isEqualTo(expectedRecords);
      full.exporter.close();
      engines.remove(full);
    }
  }

  private static Map<String, String> first(Map<String, String> sorted, int n) {
    Map<String, String> out = new TreeMap<>();
    for (Map.Entry<String, String> e : sorted.entrySet()) {
      if (out.size() == n) {
        break;
      }
      out.put(e.getKey(), e.getValue());
    }
    return out;
  }

  private static String conditionOrNull(TargetStatus s, String type) {
    // False is reported only after a True (history a fresh full pass does not have).
    Condition c = s.condition(type);
    return c == null || !"True".equals(c.status()) ? null
        : c.reason() + " " + c.message();
  }

  private static Map<String, String> hashes(java.util.Collection<Record> records) {
    Map<String, String> out = new TreeMap<>();
    for (Record r : records) {
      out.put(r.key(), r.contentHash());
    }
    return out;
  }

  /** What a receiver that applies every record in order ends with. */
  private static Map<String, String> sinkEndState(RecordingSink sink) {
    Map<String, String> out = new TreeMap<>();
    for (Record r : sink.records()) {
      if (r.op() == Op.DELETE) {
        out.remove(r.key());
      } else {
        out.put(r.key(), r.contentHash());
      }
    }
    return out;
  }
}
