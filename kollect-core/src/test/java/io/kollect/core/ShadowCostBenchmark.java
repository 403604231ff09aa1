package io.kollect.core;

import com.fasterxml.jackson.databind.JsonNode;
import io.kollect.extract.ExtractOptions;
import io.kollect.extract.FieldRule;
import io.kollect.extract.ProfileDiff;
import io.kollect.extract.ProfileSpec;
import io.kollect.extract.ResourceRule;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.kollect.informers.InformerLease;
import io.kollect.informers.LeaseRequest;
import io.kollect.informers.LeaseStatus;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * What a shadow evaluation costs next to the target's own full pass, at 5,000 and 50,000 objects
 * (the ConfigMap shape of {@link EngineCostBenchmark}, in memory, no API server): the first
 * evaluation of a candidate (extracts every object), a re-evaluation of an unchanged cache
 * (memo lookups only) and one after a single change. Wall time of the shadow thread's run, mean
 * of 5. Not run by {@code verify}; see docs/benchmarks.md for the command.
 */
public final class ShadowCostBenchmark {

  private ShadowCostBenchmark() {}

  public static void main(String[] args) throws Exception {
    for (int size : new int[] {5_000, 50_000}) {
      run(size);
    }
  }

  private static void run(int size) throws Exception {
    try (EngineCostBenchmark.Fixture f = new EngineCostBenchmark.Fixture(size)) {
      // The target's own full pass over an unchanged cache (its memo hits), for scale.
      long full = 0;
      for (int i = 0; i < 5; i++) {
        long t0 = System.nanoTime();
        f.rt.requestFullPass();
        f.queue.add(f.rt.id);
        f.drain();
        full += System.nanoTime() - t0;
      }
      full /= 5;
      ProfileSpec candidate = new ProfileSpec(List.of(new ResourceRule("", "v1", "ConfigMap",
          List.of(FieldRule.of("a", ".data.a")), List.of(), List.of(), List.of(), false,
          false)));
      ShadowEvaluation shadows = new ShadowEvaluation(new ShadowEvaluation.Reading("bench",
          // The same cache as the target's (one shared informer), seen through a lease of its own.
          (request, listener) -> new InformerLease() {
            @Override
            public LeaseRequest request() {
              return request;
            }

            @Override
            public List<GenericKubernetesResource> list() {
              return f.lease.list();
            }

            @Override
            public GenericKubernetesResource get(String namespace, String name) {
              return f.lease.get(namespace, name);
            }

            @Override
            public boolean hasSynced() {
              return true;
            }

            @Override
            public LeaseStatus status() {
              return f.lease.status();
            }

            @Override
            public void close() {}
          },
          obj -> ClientJson.toTree(f.serialization, obj), ns -> true,
          TenantBoundary.off(), ExtractOptions.none(), Clock.systemUTC(), Shard.NONE),
          profile -> List.of(f.rt), Duration.ofHours(1));
      try {
        long t0 = System.nanoTime();
        shadows.put("cm", candidate);
        while (shadows.diff("cm").isEmpty()) {
          Thread.onSpinWait();
        }
        long first = System.nanoTime() - t0;
        ProfileDiff d = shadows.diff("cm").orElseThrow();
        if (d.objects() != size || d.changed() != size) {
          throw new IllegalStateException("unexpected diff " + d.objects() + "/" + d.changed());
        }
        long again = 0;
        for (int i = 0; i < 5; i++) {
          long t1 = System.nanoTime();
          shadows.evaluateNow("cm");
          again += System.nanoTime() - t1;
        }
        again /= 5;
        long afterChange = 0;
        for (int i = 0; i < 5; i++) {
          f.change(i);
          f.drain();
          long t1 = System.nanoTime();
          shadows.evaluateNow("cm");
          afterChange += System.nanoTime() - t1;
        }
        afterChange /= 5;
        System.out.printf("%,d objects: target full pass %.1f ms; shadow first %.1f ms, "
                + "unchanged %.1f ms, after one change %.1f ms (%.2fx the full pass)%n",
            size, full / 1e6, first / 1e6, again / 1e6, afterChange / 1e6,
            (double) afterChange / full);
      } finally {
        shadows.close();
      }
    }
  }
}
