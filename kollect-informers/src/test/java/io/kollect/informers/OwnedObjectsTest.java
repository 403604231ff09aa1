package io.kollect.informers;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListMetaBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class OwnedObjectsTest {

  static final ResourceType CONFIG_MAP = new ResourceType("", "v1", "ConfigMap");
  /** Owns the objects whose name starts with "mine". */
  static final ObjectOwnership MINE = (cluster, group, kind, ns, name) -> name.startsWith("mine");

  static InformerOptions options(ObjectOwnership o) {
    return InformerOptions.defaults().withCluster("c").withOwnership(o);
  }

  static GenericKubernetesResource object(String name, String rv) {
    GenericKubernetesResource r = new GenericKubernetesResource();
    r.setMetadata(new ObjectMetaBuilder().withNamespace("ns").withName(name)
        .withResourceVersion(rv).build());
    return r;
  }

  @Test
  void noOwnershipAndTypesEveryShardNeedsWholeAreNotFiltered() {
    assertThat(OwnedObjects.of(InformerOptions.defaults(), CONFIG_MAP)).isNull();
    assertThat(OwnedObjects.of(options(MINE), new ResourceType("", "v1", "Namespace"))).isNull();
    assertThat(OwnedObjects.of(options(MINE), InformerRegistry.CRD_TYPE)).isNull();
    assertThat(OwnedObjects.of(options(MINE), CONFIG_MAP)).isNotNull();
  }

  @Test
  void aClusterOwnedWholeHasNoFilterWhileAnotherClusterOfTheSameOwnershipHasOne() {
    ObjectOwnership wholeWest = new ObjectOwnership() {
      @Override
      public boolean owns(String cluster, String group, String kind, String ns, String name) {
        return cluster.equals("west") || name.startsWith("mine");
      }

      @Override
      public boolean ownsWhole(String cluster) {
        return cluster.equals("west");
      }
    };
    assertThat(OwnedObjects.of(InformerOptions.defaults().withCluster("west")
        .withOwnership(wholeWest), CONFIG_MAP)).isNull();
    assertThat(OwnedObjects.of(InformerOptions.defaults().withCluster("home")
        .withOwnership(wholeWest), CONFIG_MAP)).isNotNull();
  }

  @Test
  void theOwnershipIsAskedWithTheRegistrysClusterAndEmptyNamespaceForClusterScoped() {
    List<String> asked = new ArrayList<>();
    OwnedObjects owned = OwnedObjects.of(options((c, g, k, ns, n) -> {
      asked.add(c + "/" + g + "/" + k + "/" + ns + "/" + n);
      return true;
    }), new ResourceType("rbac.authorization.k8s.io", "v1", "ClusterRole"));
    GenericKubernetesResource role = new GenericKubernetesResource();
    role.setMetadata(new ObjectMetaBuilder().withName("admin").build());
    assertThat(owned.owns(role)).isTrue();
    assertThat(asked).containsExactly("c/rbac.authorization.k8s.io/ClusterRole//admin");
  }

  @Test
  void aListPageKeepsOnlyOwnedItemsAndItsContinueTokenAndVersion() {
    GenericKubernetesResourceList page = new GenericKubernetesResourceList();
    page.setMetadata(new ListMetaBuilder().withContinue("token").withResourceVersion("42").build());
    page.setItems(new ArrayList<>(List.of(object("mine-1", "1"), object("theirs", "2"),
        object("mine-2", "3"))));
    GenericKubernetesResourceList out = OwnedObjects.of(options(MINE), CONFIG_MAP).filter(page);
    assertThat(out.getItems()).extracting(r -> r.getMetadata().getName())
        .containsExactly("mine-1", "mine-2");
    assertThat(out.getMetadata().getContinue()).isEqualTo("token");
    assertThat(out.getMetadata().getResourceVersion()).isEqualTo("42");
  }

  @Test
  void anotherShardsEventReachesTheReflectorOnlyAsABookmarkOfItsVersion() {
    List<String> seen = new ArrayList<>();
    Watcher<GenericKubernetesResource> downstream = new Watcher<>() {
      @Override
      public void eventReceived(Action action, GenericKubernetesResource resource) {
        seen.add(action + " " + resource.getMetadata().getName() + " "
            + resource.getMetadata().getResourceVersion());
      }

      @Override
      public void onClose(WatcherException cause) {}
    };
    Watcher<GenericKubernetesResource> w =
        OwnedObjects.of(options(MINE), CONFIG_MAP).watcher(downstream);
    w.eventReceived(Watcher.Action.ADDED, object("mine-1", "5"));
    w.eventReceived(Watcher.Action.MODIFIED, object("theirs", "6"));
    w.eventReceived(Watcher.Action.DELETED, object("theirs", "7"));
    w.eventReceived(Watcher.Action.DELETED, object("mine-1", "8"));
    assertThat(seen).containsExactly("ADDED mine-1 5", "BOOKMARK null 6", "BOOKMARK null 7",
        "DELETED mine-1 8");
  }

  @Test
  void optionsKeepTheirOwnershipThroughEveryWither() {
    InformerOptions o = options(MINE).withResyncPeriod(Duration.ZERO).withListPageSize(10)
        .withClusterWideThreshold(3).withWatchLiveness(Duration.ofSeconds(5)).withCluster("d");
    assertThat(o.ownership()).isSameAs(MINE);
    assertThat(InformerOptions.defaults().ownership()).isSameAs(ObjectOwnership.ALL);
  }
}
