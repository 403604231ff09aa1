package io.kollect.testing;

import io.fabric8.kubernetes.api.model.APIGroup;
import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Every object an API server holds, by uid and resourceVersion, taken once the server is set up;
 * and the way back to it: {@link #restore} deletes what was added since (finalizers stripped, pods
 * and namespaces without waiting for a kubelet or a namespace controller, neither of which runs
 * here) and then says whether the server is provably as it was. A server that is not (an object of
 * the baseline changed or went missing, or something is still watching) must not be handed to
 * another test class.
 */
final class ClusterBaseline {

  /** How long deletions (a CRD's instances, a namespace's finalization) may take to show. */
  private static final long SETTLE_MILLIS = 20_000;
  /** How long the watches of a client just closed may take to end on the server. */
  private static final long WATCHES_END_MILLIS = 5_000;
  private static final String FINALIZERS_REMOVED = "{\"metadata\":{\"finalizers\":null}}";

  /** One listable, deletable resource type in its group's preferred version. */
  private record Type(ResourceDefinitionContext context) {
    String plural() {
      return context.getPlural();
    }

    boolean namespaced() {
      return context.isNamespaceScoped();
    }

    boolean isNamespace() {
      return context.getGroup().isEmpty() && "namespaces".equals(plural());
    }

    boolean isCrd() {
      return "apiextensions.k8s.io".equals(context.getGroup())
          && "customresourcedefinitions".equals(plural());
    }

    String name() {
      return (context.getGroup().isEmpty() ? "" : context.getGroup() + "/") + plural();
    }
  }

  /** An object as the baseline knows it: uid → resourceVersion. */
  private final Map<String, String> versions;
  /** The API server's own watches (its admission plugins' and controllers' informers). */
  private final long watches;

  private ClusterBaseline(Map<String, String> versions, long watches) {
    this.versions = versions;
    this.watches = watches;
  }

  static ClusterBaseline capture(KubernetesClient client) {
    Map<String, String> versions = new HashMap<>();
    for (Type type : types(client)) {
      for (GenericKubernetesResource object : list(client, type)) {
        versions.put(object.getMetadata().getUid(), object.getMetadata().getResourceVersion());
      }
    }
    return new ClusterBaseline(versions, openWatches(client.raw("/metrics")));
  }

  /**
   * Deletes what is not in the baseline; empty when the server then holds exactly the baseline
   * and no more watches than its own, otherwise why not.
   */
  Optional<String> restore(KubernetesClient client) {
    Optional<String> watching = watchesEnded(client);
    if (watching.isPresent()) {
      return watching;
    }
    List<Type> types = types(client);
    Map<Type, List<GenericKubernetesResource>> added = new LinkedHashMap<>();
    for (Type type : types) {
      for (GenericKubernetesResource object : list(client, type)) {
        ObjectMeta meta = object.getMetadata();
        String version = versions.get(meta.getUid());
        if (version == null) {
          added.computeIfAbsent(type, t -> new ArrayList<>()).add(object);
        } else if (!version.equals(meta.getResourceVersion())) {
          return Optional.of(type.name() + " " + describe(meta) + " changed");
        }
      }
    }
    // Contents before their namespaces, custom resources before their definitions.
    added.forEach((type, objects) -> {
      if (type.namespaced()) {
        objects.forEach(o -> delete(client, type, o));
      }
    });
    added.forEach((type, objects) -> {
      if (!type.namespaced() && !type.isCrd()) {
        objects.forEach(o -> delete(client, type, o));
      }
    });
    added.forEach((type, objects) -> {
      if (type.isCrd()) {
        objects.forEach(o -> delete(client, type, o));
      }
    });
    return settled(client, types);
  }

  private Optional<String> watchesEnded(KubernetesClient client) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WATCHES_END_MILLIS);
    while (true) {
      long open = openWatches(client.raw("/metrics"));
      if (open <= watches) {
        return Optional.empty();
      }
      if (System.nanoTime() > deadline) {
        return Optional.of((open - watches) + " watches of a client are still open");
      }
      pause();
    }
  }

  /** The sum of {@code apiserver_longrunning_gauge{verb="WATCH"}}. */
  static long openWatches(String metrics) {
    long sum = 0;
    for (String line : metrics.split("\n")) {
      if (line.startsWith("apiserver_longrunning_gauge{") && line.contains("verb=\"WATCH\"")) {
        sum += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }

  /** {@code types}: those before the deletions; a type whose CRD went since lists nothing. */
  private Optional<String> settled(KubernetesClient client, List<Type> types) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SETTLE_MILLIS);
    while (true) {
      Optional<String> difference = difference(client, types);
      if (difference.isEmpty() || System.nanoTime() > deadline) {
        return difference;
      }
      pause();
    }
  }

  private static void pause() {
    try {
      Thread.sleep(100);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while restoring the API server", e);
    }
  }

  private Optional<String> difference(KubernetesClient client, List<Type> types) {
    Map<String, String> seen = new HashMap<>();
    for (Type type : types) {
      for (GenericKubernetesResource object : list(client, type)) {
        ObjectMeta meta = object.getMetadata();
        String version = versions.get(meta.getUid());
        if (!meta.getResourceVersion().equals(version)) {
          return Optional.of(type.name() + " " + describe(meta)
              + (version == null ? " still there" : " changed"));
        }
        seen.put(meta.getUid(), version);
      }
    }
    return seen.size() == versions.size() ? Optional.empty()
        : Optional.of((versions.size() - seen.size()) + " objects of the baseline are missing");
  }

  private static void delete(KubernetesClient client, Type type, GenericKubernetesResource object) {
    ObjectMeta meta = object.getMetadata();
    var resource = meta.getNamespace() == null
        ? client.genericKubernetesResources(type.context()).withName(meta.getName())
        : client.genericKubernetesResources(type.context()).inNamespace(meta.getNamespace())
            .withName(meta.getName());
    try {
      if (meta.getFinalizers() != null && !meta.getFinalizers().isEmpty()) {
        resource.patch(PatchContext.of(PatchType.JSON_MERGE), FINALIZERS_REMOVED);
      }
      resource.withGracePeriod(0).delete();
      if (type.isNamespace()) {
        // The namespace's own finalizer waits for a namespace controller; its contents are gone.
        GenericKubernetesResource terminating = resource.get();
        if (terminating != null) {
          terminating.setAdditionalProperty("spec", Map.of("finalizers", List.of()));
          client.raw("/api/v1/namespaces/" + meta.getName() + "/finalize", "PUT", terminating);
        }
      }
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        throw e;
      }
    }
  }

  private static List<Type> types(KubernetesClient client) {
    List<Type> types = new ArrayList<>();
    add(types, client, "", "v1");
    for (APIGroup group : client.getApiGroups().getGroups()) {
      add(types, client, group.getName(), group.getPreferredVersion().getVersion());
    }
    return types;
  }

  private static void add(List<Type> types, KubernetesClient client, String group,
      String version) {
    String groupVersion = group.isEmpty() ? version : group + "/" + version;
    APIResourceList resources = client.getApiResources(groupVersion);
    if (resources == null) {
      return; // a group whose CRDs were just deleted
    }
    for (APIResource resource : resources.getResources()) {
      if (!resource.getName().contains("/") && resource.getVerbs().contains("list")
          && resource.getVerbs().contains("delete")) {
        types.add(new Type(new ResourceDefinitionContext.Builder().withGroup(group)
            .withVersion(version).withPlural(resource.getName()).withKind(resource.getKind())
            .withNamespaced(resource.getNamespaced()).build()));
      }
    }
  }

  private static List<GenericKubernetesResource> list(KubernetesClient client, Type type) {
    var resources = client.genericKubernetesResources(type.context());
    try {
      return (type.namespaced() ? resources.inAnyNamespace().list() : resources.list()).getItems();
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return List.of(); // a type whose CRD was just deleted
      }
      throw e;
    }
  }

  private static String describe(ObjectMeta meta) {
    return (meta.getNamespace() == null ? "" : meta.getNamespace() + "/") + meta.getName();
  }
}
