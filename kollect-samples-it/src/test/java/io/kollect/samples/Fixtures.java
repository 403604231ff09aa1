package io.kollect.samples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kollect.core.ClientJson;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Puts a sample's fixtures on a live API server the way users and controllers would. */
final class Fixtures {
  private Fixtures() {}

  /** Creates the namespace if it does not exist yet. */
  static void ensureNamespace(KubernetesClient client, String name) {
    if (client.namespaces().withName(name).get() == null) {
      client.namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
          .create();
    }
  }

  /** Creates or replaces the CRDs and waits until the API server serves them. */
  static void installCrds(KubernetesClient client, List<JsonNode> crds) {
    for (JsonNode doc : crds) {
      CustomResourceDefinition crd =
          client.getKubernetesSerialization().unmarshal(doc.toString(), CustomResourceDefinition.class);
      client.apiextensions().v1().customResourceDefinitions().resource(crd).serverSideApply();
      client.apiextensions().v1().customResourceDefinitions()
          .withName(crd.getMetadata().getName())
          .waitUntilCondition(Fixtures::established, 60, TimeUnit.SECONDS);
    }
  }

  /** Installs every CRD in the {@code *.yaml}/{@code *.yml} files of a directory (deploy/crds). */
  static void installCrdDir(KubernetesClient client, Path dir) {
    installCrds(client, Sample.readAll(yamlFilesIn(dir)).stream()
        .filter(doc -> "CustomResourceDefinition".equals(doc.path("kind").asText()))
        .toList());
  }

  static List<Path> yamlFilesIn(Path dir) {
    try (var files = java.nio.file.Files.list(dir)) {
      return files.filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".yml"))
          .sorted()
          .toList();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static boolean established(CustomResourceDefinition crd) {
    return crd != null && crd.getStatus() != null && crd.getStatus().getConditions() != null
        && crd.getStatus().getConditions().stream()
            .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  /**
   * Creates each fixture object. Where the API server ignores a fixture's {@code status} on create
   * (kinds with a status subresource), writes it through {@code /status} afterwards, standing in
   * for the controller that would report it (deployment controller, helm-controller): the test API
   * server runs no controllers.
   */
  static void create(KubernetesClient client, List<JsonNode> objects) {
    for (JsonNode object : objects) {
      createOne(client, object);
    }
  }

  static HasMetadata createOne(KubernetesClient client, JsonNode object) {
    KubernetesSerialization serialization = client.getKubernetesSerialization();
    HasMetadata created = client.resource(toResource(serialization, object)).create();
    JsonNode wantedStatus = object.path("status");
    if (!wantedStatus.isMissingNode()
        && !wantedStatus.equals(ClientJson.toTree(serialization, created).path("status"))) {
      ObjectNode withStatus = (ObjectNode) ClientJson.toTree(serialization, created);
      withStatus.set("status", wantedStatus);
      created = client.resource(toResource(serialization, withStatus)).updateStatus();
    }
    return created;
  }

  /** The fixture as the client's typed model where it has one, else a generic resource. */
  static HasMetadata toResource(KubernetesSerialization serialization, JsonNode object) {
    // as text: the client reads with another Jackson line than these trees
    KubernetesResource resource = serialization.unmarshal(object.toString(), KubernetesResource.class);
    if (resource instanceof HasMetadata typed) {
      return typed;
    }
    return serialization.unmarshal(object.toString(), GenericKubernetesResource.class);
  }

  /** Applies a manifest (profile, target, sink) with server-side apply, as kubectl apply would. */
  static HasMetadata apply(KubernetesClient client, JsonNode object) {
    return client.resource(toResource(client.getKubernetesSerialization(), object))
        .fieldManager("kollect-samples-it")
        .forceConflicts()
        .serverSideApply();
  }
}
