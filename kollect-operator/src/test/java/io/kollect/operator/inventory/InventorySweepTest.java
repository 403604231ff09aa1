package io.kollect.operator.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.core.TargetId;
import io.kollect.operator.crd.KollectInventory;
import io.kollect.operator.crd.KollectInventorySpec;
import io.kollect.operator.crd.KollectTarget;
import io.kollect.operator.crd.KollectTargetSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class InventorySweepTest {

  private final List<KollectInventory> inCluster = new ArrayList<>();
  private final List<String> calls = new ArrayList<>();
  private final Map<TargetId, Boolean> targets = new java.util.HashMap<>();
  private final InventorySweep sweep = new InventorySweep(new InventorySweep.Api() {
    @Override
    public List<KollectInventory> listAll() {
      calls.add("LIST");
      return List.copyOf(inCluster);
    }

    @Override
    public void delete(KollectInventory inventory) {
      calls.add("DELETE " + inventory.getMetadata().getName());
    }

    @Override
    public void deleteTarget(TargetId id) {
      calls.add("DELETE target " + id);
    }
  }, this::target, Runnable::run);

  private Optional<KollectTarget> target(TargetId id) {
    Boolean writes = targets.get(id);
    if (writes == null) {
      return Optional.empty();
    }
    KollectTarget t = new KollectTarget();
    t.setSpec(new KollectTargetSpec("p", null, List.of(), writes, null));
    return Optional.of(t);
  }

  private void inventory(String ns, String target) {
    KollectInventory inv = new KollectInventory();
    inv.getMetadata().setNamespace(ns);
    inv.getMetadata().setName(target + "-0");
    inv.setSpec(new KollectInventorySpec(target, 0, 1, 0, List.of()));
    inCluster.add(inv);
  }

  @Test
  void aTargetWithoutInventoryObjectsCostsNoCallWhenItTurnsWriteInventoryOffOrGoes() {
    targets.put(new TargetId("ns", "a"), false);
    sweep.sweep();
    sweep.targetWithoutInventory(new TargetId("ns", "a"));
    sweep.targetWithoutInventory(new TargetId("ns", "b"));
    assertThat(calls).containsExactly("LIST");
  }

  @Test
  void oneListFindsTheOrphansAndTheTargetsThatHaveObjects() {
    targets.put(new TargetId("ns", "keeps"), true);
    targets.put(new TargetId("ns", "off"), false);
    inventory("ns", "keeps");
    inventory("ns", "off");
    inventory("ns", "deleted");
    sweep.sweep();
    assertThat(calls).containsExactly("LIST", "DELETE off-0", "DELETE deleted-0");

    calls.clear();
    sweep.targetWithoutInventory(new TargetId("ns", "keeps"));
    sweep.targetWithoutInventory(new TargetId("ns", "keeps"));
    assertThat(calls).as("deleted once").containsExactly("DELETE target ns/keeps");
  }

  @Test
  void objectsWrittenAfterTheSweepAreDeletedWhenTheTargetStopsWantingThem() {
    sweep.sweep();
    sweep.written(new TargetId("ns", "new"));
    sweep.targetWithoutInventory(new TargetId("ns", "new"));
    assertThat(calls).containsExactly("LIST", "DELETE target ns/new");
  }

  @Test
  void beforeTheFirstSweepNothingIsDeletedHereTheSweepDoesIt() {
    sweep.written(new TargetId("ns", "t"));
    sweep.targetWithoutInventory(new TargetId("ns", "t"));
    assertThat(calls).isEmpty();
  }
}
