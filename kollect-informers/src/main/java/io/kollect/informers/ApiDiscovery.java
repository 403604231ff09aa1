package io.kollect.informers;

import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.util.List;

/** Asks the API server's discovery endpoint how (and whether) it serves a type. */
final class ApiDiscovery {

  /**
   * What discovery says about a type.
   *
   * @param served whether the group/version serves the kind with list and watch
   * @param plural the resource name used in URLs and RBAC rules
   * @param namespaced whether objects live in namespaces
   * @param detail why it is not served, for status messages
   */
  record TypeInfo(boolean served, String plural, boolean namespaced, String detail) {
    static TypeInfo notServed(String detail) {
      return new TypeInfo(false, null, false, detail);
    }
  }

  private final KubernetesClient client;

  ApiDiscovery(KubernetesClient client) {
    this.client = client;
  }

  /** Resolves {@code type}; throws {@link KubernetesClientException} when discovery itself fails. */
  TypeInfo resolve(ResourceType type) {
    APIResourceList resources;
    try {
      resources = client.getApiResources(type.apiVersion());
    } catch (KubernetesClientException e) {
      if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
        return TypeInfo.notServed("API server does not serve " + type.apiVersion());
      }
      throw e;
    }
    if (resources == null || resources.getResources() == null) {
      return TypeInfo.notServed("API server does not serve " + type.apiVersion());
    }
    for (APIResource r : resources.getResources()) {
      if (type.kind().equals(r.getKind()) && r.getName() != null && !r.getName().contains("/")) {
        List<String> verbs = r.getVerbs() == null ? List.of() : r.getVerbs();
        if (!verbs.contains("list") || !verbs.contains("watch")) {
          return TypeInfo.notServed(type + " does not support list and watch");
        }
        return new TypeInfo(true, r.getName(), Boolean.TRUE.equals(r.getNamespaced()), null);
      }
    }
    return TypeInfo.notServed(type.apiVersion() + " does not serve kind " + type.kind());
  }
}
