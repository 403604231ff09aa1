package io.kollect.core;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kollect.extract.CompiledProfile;
import io.kollect.extract.FieldRule;
import io.kollect.extract.ProfileCompiler;
import io.kollect.extract.ProfileSpec;
import io.kollect.extract.Record;
import io.kollect.extract.ResourceRule;
import io.kollect.informers.InformerLease;
import io.kollect.informers.LeaseRequest;
import io.kollect.informers.LeaseStatus;
import io.kollect.informers.ResourceEvent;
import io.kollect.informers.ResourceType;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The delta pass alone, with a context as a full pass would leave it. */
class DeltaPassTest {

  static final ResourceType CM = TargetReconcilerTest.CM;

  /** A cache of ConfigMaps by namespace/name whose sync the test sets. */
  static final class Lease implements InformerLease {
    final Map<String, GenericKubernetesResource> objects = new TreeMap<>();
    boolean synced = true;

    @Override
    public LeaseRequest request() {
      return LeaseRequest.all(CM);
    }

    @Override
    public List<GenericKubernetesResource> list() {
      return List.copyOf(objects.values());
    }

    @Override
    public GenericKubernetesResource get(String namespace, String name) {
      return objects.get(namespace + "/" + name);
    }

    @Override
    public boolean hasSynced() {
      return synced;
    }

    @Override
    public LeaseStatus status() {
      return new LeaseStatus(CM, true, synced, List.of());
    }

    @Override
    public void close() {}
  }

  private final AccessDecisionsTest.Policy policy = new AccessDecisionsTest.Policy();
  private final AccessDecisions decisions = new AccessDecisions(policy, null, q -> {});
  private final TenantBoundary boundary = new TenantBoundary(decisions, Set.of(), "reader",
      t -> Optional.of("configmaps"));
  private final KubernetesSerialization serialization = new KubernetesSerialization();
  private final DeltaPass delta = new DeltaPass("c", new RecordExtractor(
      o -> ClientJson.toTree(serialization, o)), new RequestedProjections(),
      LeaseSignals.FROM_LEASE_STATUS, new NamespaceScope(null, new TargetIndex(), ns -> true));
  private final TargetRuntime rt = new TargetRuntime(TargetRuntime.Definition.of(new TargetSpec(
      new TargetId("tenant", "t"), 1, "p", TargetScope.everything(), List.of(), false)));
  private final Lease lease = new Lease();
  private final CompiledProfile profile = ProfileCompiler.compile("p", new ProfileSpec(List.of(
      new ResourceRule("", "v1", "ConfigMap", List.of(FieldRule.of("a", ".data.a")), List.of(),
          List.of(), List.of(), false, false))));
  private PassContext context;
  private long rv;

  DeltaPassTest() {
    policy.allow("tenant", "reader", "configmaps", null, false);
    policy.allow("tenant", "reader", "configmaps", "a", true);
    policy.allow("tenant", "reader", "configmaps", "b", false);
    TenantBoundary.TypeAccess access = boundary.access(
        new TenantBoundary.ServiceAccountRef("tenant", "reader"), CM, true);
    access.allows("a"); // what the full pass asked
    access.allows("b");
    rt.leases.put(CM, lease);
    context = new PassContext(profile, NamespaceScope.NamespaceSet.ALL, Map.of(CM, access),
        Set.of(), true, true, Set.of(CM),
        new StatusBuilder(rt, rt.spec(), Instant.EPOCH));
    rt.takeFullPassRequest();
  }

  @AfterEach
  void close() {
    decisions.close();
  }

  private GenericKubernetesResource put(String ns, String name) {
    GenericKubernetesResource o = new GenericKubernetesResourceBuilder().withApiVersion("v1")
        .withKind("ConfigMap").withNewMetadata().withNamespace(ns).withName(name)
        .withResourceVersion(Long.toString(++rv)).endMetadata()
        .addToAdditionalProperties("data", Map.of("a", "v" + rv)).build();
    lease.objects.put(ns + "/" + name, o);
    mark(ResourceEvent.Kind.ADDED, o);
    return o;
  }

  private void mark(ResourceEvent.Kind kind, GenericKubernetesResource o) {
    String ns = o.getMetadata().getNamespace();
    String name = o.getMetadata().getName();
    rt.dirty.put(ObjectKey.of(CM, ns, name), new ResourceEvent(kind, CM, ns, name, o));
  }

  @Test
  void aDeltaReadsOnlyWhatTheTenantMayReadAndAsksNothingNew() {
    put("a", "x");
    put("b", "y");
    int asked = policy.asked.get();
    RecordChanges changes = delta.run(rt, context, Instant.EPOCH);
    assertThat(changes.upserts).extracting(Record::name).containsExactly("x");
    assertThat(rt.dirty).isEmpty();
    assertThat(rt.fullPassPending()).isFalse();

    put("c", "z"); // a namespace the full pass never asked about
    assertThat(delta.run(rt, context, Instant.EPOCH).isEmpty()).isTrue();
    assertThat(rt.fullPassPending()).isTrue();
    assertThat(policy.asked.get()).isEqualTo(asked);
  }

  @Test
  void beforeTheTypeIsSyncedUpsertsApplyButNothingLeaves() {
    GenericKubernetesResource x = put("a", "x");
    delta.run(rt, context, Instant.EPOCH);
    lease.synced = false;
    lease.objects.clear();
    mark(ResourceEvent.Kind.DELETED, x);
    put("a", "w");
    RecordChanges changes = delta.run(rt, context, Instant.EPOCH);
    assertThat(changes.upserts).extracting(Record::name).containsExactly("w");
    assertThat(changes.removed).isEmpty();
    assertThat(rt.records.size()).isEqualTo(2);

    lease.synced = true;
    mark(ResourceEvent.Kind.DELETED, x);
    assertThat(delta.run(rt, context, Instant.EPOCH).removed).extracting(Record::name)
        .containsExactly("x");
  }
}
